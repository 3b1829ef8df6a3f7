//go:build tools

// Pins actionlint (a GitHub Actions workflow linter) for the tests: test/ci/actionlint.ts builds
// github.com/rhysd/actionlint/cmd/actionlint from this module into .tools/actionlint/bin, its
// version in go.mod and every dependency's hash in go.sum.
package tools

import _ "github.com/rhysd/actionlint/cmd/actionlint"
