package server

import (
	_ "embed"
	"net/http"
)

// openAPI is the hand-written OpenAPI 3.1 description of Handler; a test
// checks it is valid JSON and lists every route.
//
//go:embed openapi.json
var openAPI []byte

// OpenAPI returns the OpenAPI 3.1 document served at /openapi.json.
func OpenAPI() []byte { return append([]byte(nil), openAPI...) }

func handleOpenAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	_, _ = w.Write(openAPI)
}
