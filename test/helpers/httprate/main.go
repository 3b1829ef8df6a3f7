// Real limiters as ground truth, in one small Go front: an HTTPS front on 127.0.0.1 (TLS 1.3 only,
// the emulator's own certificate) that limits every request keyed by client address and forwards
// those it lets through to the emulator (whose own limiter is off). Built and started by
// test/helpers/httprate.ts. `-limiter`:
//
//	httprate  go-chi/httprate's httprate.Limit(limit, window), as a chi service deploys it
//	xrate     golang.org/x/time/rate's Limiter(rate, burst): a bucket refilled continuously, Allow()
//	batch     a bucket refilled by a timer in whole batches: `-rate` × `-fill-interval` tokens every
//	          fill interval, up to `-burst`, as Envoy's local rate limit token_bucket does (max_tokens,
//	          tokens_per_fill, fill_interval); written here, as Envoy's is C++
//	traefik   Traefik's rateLimit middleware (pkg/middlewares/ratelimiter, v2.10-v3): an x/time/rate
//	          bucket of `-rate` and `-burst` whose request is held until its token is due when that is
//	          at most maxDelay away (1 s / (2 × int(rate)), 500 ms below 1 req/s), else refused with
//	          Retry-After (whole seconds, rounded up) and X-Retry-In; its logic restated here, as the
//	          traefik module is the whole proxy
package main

import (
	"crypto/tls"
	"crypto/x509"
	"flag"
	"fmt"
	"log"
	"math"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/go-chi/httprate"
	"golang.org/x/time/rate"
)

func main() {
	upstream := flag.String("upstream", "", "the emulator's https URL on 127.0.0.1")
	tlsDir := flag.String("tls-dir", "", "folder with ca.pem, server.pem, server-key.pem")
	port := flag.Int("port", 0, "port to listen on, on 127.0.0.1")
	kind := flag.String("limiter", "httprate", "httprate, xrate, batch or traefik")
	limit := flag.Int("limit", 50, "httprate: requests per window")
	window := flag.Duration("window", time.Second, "httprate: window length")
	rps := flag.Float64("rate", 50, "xrate, batch, traefik: tokens per second")
	burst := flag.Int("burst", 50, "xrate, batch, traefik: the bucket's capacity")
	fill := flag.Duration("fill-interval", time.Second, "batch: how often a batch of tokens is added")
	flag.Parse()

	target, err := url.Parse(*upstream)
	if err != nil || target.Hostname() != "127.0.0.1" {
		log.Fatalf("--upstream must be an https URL on 127.0.0.1, not %q", *upstream)
	}
	ca, err := os.ReadFile(filepath.Join(*tlsDir, "ca.pem"))
	if err != nil {
		log.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(ca)
	cert, err := tls.LoadX509KeyPair(filepath.Join(*tlsDir, "server.pem"), filepath.Join(*tlsDir, "server-key.pem"))
	if err != nil {
		log.Fatal(err)
	}

	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.Transport = &http.Transport{
		TLSClientConfig:       &tls.Config{RootCAs: roots, ServerName: "localhost", MinVersion: tls.VersionTLS13},
		ResponseHeaderTimeout: 10 * time.Second,
		MaxIdleConnsPerHost:   16,
	}
	var handler http.Handler
	switch *kind {
	case "httprate":
		handler = httprate.Limit(*limit, *window, httprate.WithKeyFuncs(httprate.KeyByIP))(proxy)
	case "xrate":
		handler = perClient(proxy, func() func() bool { return rate.NewLimiter(rate.Limit(*rps), *burst).Allow })
	case "batch":
		perFill := int(*rps*fill.Seconds() + 0.5)
		handler = perClient(proxy, func() func() bool { return newBatchBucket(*burst, perFill, *fill) })
	case "traefik":
		handler = traefikLimit(proxy, *rps, *burst)
	default:
		log.Fatalf("--limiter must be httprate, xrate, batch or traefik, not %q", *kind)
	}

	ln, err := tls.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", *port), &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS13})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("listening on %s\n", ln.Addr().(*net.TCPAddr).String())
	server := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 10 * time.Second, WriteTimeout: 20 * time.Second}
	log.Fatal(server.Serve(ln))
}

// perClient keys a limiter by client address (as httprate.KeyByIP does) and answers 429 when it refuses.
func perClient(next http.Handler, newLimiter func() func() bool) http.Handler {
	allowFor := byClient(newLimiter)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !allowFor(r)() {
			http.Error(w, http.StatusText(http.StatusTooManyRequests), http.StatusTooManyRequests)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// byClient: one limiter per client address, made on its first request.
func byClient[T any](newLimiter func() T) func(*http.Request) T {
	var mu sync.Mutex
	limiters := map[string]T{}
	return func(r *http.Request) T {
		host, _, err := net.SplitHostPort(r.RemoteAddr)
		if err != nil {
			host = r.RemoteAddr
		}
		mu.Lock()
		defer mu.Unlock()
		limiter, ok := limiters[host]
		if !ok {
			limiter = newLimiter()
			limiters[host] = limiter
		}
		return limiter
	}
}

// newBatchBucket: full at the start; a timer adds perFill tokens every interval, up to capacity.
// Between ticks nothing comes back (Envoy's token bucket, refilled by its fill timer).
func newBatchBucket(capacity, perFill int, interval time.Duration) func() bool {
	var mu sync.Mutex
	tokens := capacity
	go func() {
		for range time.Tick(interval) {
			mu.Lock()
			tokens = min(capacity, tokens+perFill)
			mu.Unlock()
		}
	}()
	return func() bool {
		mu.Lock()
		defer mu.Unlock()
		if tokens == 0 {
			return false
		}
		tokens--
		return true
	}
}

// traefikLimit: Traefik's rateLimit middleware as its ServeHTTP runs it, keyed by client address:
// Reserve a token; a request whose token is due within maxDelay waits for it and passes, one due
// later gives its reservation back and is refused with how long it would have waited.
func traefikLimit(next http.Handler, rps float64, burst int) http.Handler {
	maxDelay := 500 * time.Millisecond
	if rps >= 1 {
		maxDelay = time.Second / (time.Duration(rps) * 2)
	}
	bucketFor := byClient(func() *rate.Limiter { return rate.NewLimiter(rate.Limit(rps), burst) })
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		bucket := bucketFor(r)
		res := bucket.Reserve()
		if !res.OK() {
			http.Error(w, "No bursty traffic allowed", http.StatusTooManyRequests)
			return
		}
		delay := res.Delay()
		if delay > maxDelay {
			res.Cancel()
			w.Header().Set("Retry-After", fmt.Sprintf("%.0f", math.Ceil(delay.Seconds())))
			w.Header().Set("X-Retry-In", delay.String())
			http.Error(w, http.StatusText(http.StatusTooManyRequests), http.StatusTooManyRequests)
			return
		}
		time.Sleep(delay)
		next.ServeHTTP(w, r)
	})
}
