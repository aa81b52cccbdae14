// Package test holds repository-wide checks (package documentation, the
// dependency rules between packages, the README contract) and, later, the
// end-to-end tests that build and run the real binaries. It has no code of
// its own for other packages to import.
package test
