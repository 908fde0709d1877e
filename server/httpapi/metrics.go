package httpapi

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
)

// requestMetrics counts the API's requests:
//
//	ossie_server_http_requests_total{route,code}          counter
//
// route is the matched mux pattern, never the raw path, so its values
// are bounded.
type requestMetrics struct {
	requests *prometheus.CounterVec
}

// registerRequestMetrics registers the request counter on reg, or reuses
// the one already there (a second API of the same server).
func registerRequestMetrics(reg prometheus.Registerer) (*requestMetrics, error) {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "ossie_server_http_requests_total",
		Help: "HTTP requests by route pattern and status code.",
	}, []string{"route", "code"})
	if err := reg.Register(c); err != nil {
		var already prometheus.AlreadyRegisteredError
		if !errors.As(err, &already) {
			return nil, err
		}
		existing, ok := already.ExistingCollector.(*prometheus.CounterVec)
		if !ok {
			return nil, err
		}
		c = existing
	}
	return &requestMetrics{requests: c}, nil
}

// observe counts one request. The ServeMux has set r.Pattern by now;
// requests that matched nothing share one label value.
func (m *requestMetrics) observe(r *http.Request, status int) {
	route := r.Pattern
	if route == "" || route == "/" {
		route = "unmatched"
	}
	if status == 0 {
		status = http.StatusOK
	}
	m.requests.WithLabelValues(route, strconv.Itoa(status)).Inc()
}
