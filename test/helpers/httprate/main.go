// go-chi/httprate as real ground truth for the sliding-window counter: an HTTPS front on
// 127.0.0.1 (TLS 1.3 only, the emulator's own certificate) that limits every request with
// httprate.Limit keyed by client address, as a chi service deploys it, and forwards those it lets
// through to the emulator (whose own limiter is off). Built and started by test/helpers/httprate.ts.
package main

import (
	"crypto/tls"
	"crypto/x509"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/go-chi/httprate"
)

func main() {
	upstream := flag.String("upstream", "", "the emulator's https URL on 127.0.0.1")
	tlsDir := flag.String("tls-dir", "", "folder with ca.pem, server.pem, server-key.pem")
	port := flag.Int("port", 0, "port to listen on, on 127.0.0.1")
	limit := flag.Int("limit", 50, "requests per window")
	window := flag.Duration("window", time.Second, "window length")
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
	handler := httprate.Limit(*limit, *window, httprate.WithKeyFuncs(httprate.KeyByIP))(proxy)

	ln, err := tls.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", *port), &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS13})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("listening on %s\n", ln.Addr().(*net.TCPAddr).String())
	server := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 10 * time.Second, WriteTimeout: 20 * time.Second}
	log.Fatal(server.Serve(ln))
}
