// Package web is the explorer: one page, its scripts (no framework, no
// build step) and style, embedded so the server needs no CDN and works
// offline, and the handler that serves them. It imports nothing of the
// server; the page speaks to the /v1/ API like any client.
package web

import (
	"embed"
	"io/fs"
	"net/http"
)

// webFiles is the explorer's page, scripts and style.
//
//go:embed index.html *.js *.css
var webFiles embed.FS

// Handler serves the explorer: the page at / and its files under /ui/.
// The files carry no data and need no authentication; the page calls the
// /v1/ API with the bearer token the user enters (or through the
// authenticating proxy), so it sees exactly what the API shows that
// caller. The content security policy keeps the page to this server.
func Handler() (index, assets http.Handler) {
	var sub fs.FS = webFiles
	files := http.FileServerFS(sub)
	secure := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'")
			w.Header().Set("X-Content-Type-Options", "nosniff")
			w.Header().Set("Referrer-Policy", "no-referrer")
			w.Header().Set("Cache-Control", "no-cache")
			h.ServeHTTP(w, r)
		})
	}
	index = secure(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeFileFS(w, r, sub, "index.html")
	}))
	return index, secure(http.StripPrefix("/ui", files))
}
