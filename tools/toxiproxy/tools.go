//go:build tools

package tools

import _ "github.com/Shopify/toxiproxy/v2/cmd/server"
