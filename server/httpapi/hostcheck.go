package httpapi

import (
	"mime"
	"net"
	"net/http"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/server/auth"
	"github.com/ossie-dev/ossie/server/problem"
)

// loopbackGuard protects a server without authentication that listens on
// loopback, the developer's `ossiectl serve`: a web page in the
// developer's browser can reach 127.0.0.1 by DNS rebinding (its own host
// name resolving to 127.0.0.1) and post a "simple" cross-origin request.
// Such requests carry the page's host name in Host, and a cross-origin
// POST without a CORS preflight cannot send Content-Type
// application/json. So, unless Options.AnyHost, every request must name a
// loopback host (localhost, 127.0.0.0/8, ::1, any port; else 403
// OSS5011) and every request with a body must be application/json (else
// 415 OSS5012). A server with authentication is left alone: a browser
// page has no bearer token to send.
func (s *api) loopbackGuard(next http.Handler) http.Handler {
	if s.cfg.Auth != nil || s.opts.AnyHost {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, err := net.SplitHostPort(r.Host)
		if err != nil {
			host = r.Host
		}
		if !auth.IsLoopback(host) {
			problem.WriteProblem(w, r, &problem.Error{Status: http.StatusForbidden, Code: compiler.CodeHostRefused, Title: "Host not allowed",
				Detail: "this server has no authentication and answers loopback host names only (localhost, 127.0.0.1, [::1])"})
			return
		}
		if r.ContentLength != 0 && r.Method != http.MethodGet && r.Method != http.MethodHead {
			mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
			if err != nil || mt != "application/json" {
				problem.WriteProblem(w, r, &problem.Error{Status: http.StatusUnsupportedMediaType, Code: compiler.CodeNotJSON, Title: "Unsupported media type",
					Detail: "send the body with Content-Type: application/json"})
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}
