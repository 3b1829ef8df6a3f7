//go:build tools

package tools

import _ "go.k6.io/k6/v2"
