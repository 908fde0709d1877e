package auth

import "github.com/prometheus/client_golang/prometheus"

// Authentication metrics, served on /metrics when Config.Auth is set:
//
//	ossie_server_auth_failures_total{reason}       counter: missing | bad_scheme | invalid_token | bad_proxy_secret | bad_proxy_identity
//	ossie_server_auth_reloads_total{file,result}   counter: file tokens | proxy_secret; result ok | error
//	ossie_server_auth_file_refused{file}           gauge: 1 while the newest content of the file is refused and the last good one serves
//	ossie_server_auth_tokens                       gauge: token entries in force
//
// No label ever carries a token, a secret, a caller name or a header value.
type authMetrics struct {
	failures *prometheus.CounterVec
	reloads  *prometheus.CounterVec
}

func newAuthMetrics() *authMetrics {
	return &authMetrics{
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "ossie_server_auth_failures_total",
			Help: "API requests refused with 401, by reason.",
		}, []string{"reason"}),
		reloads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "ossie_server_auth_reloads_total",
			Help: "Loads of a credentials file, by file and result (an error keeps the last good content).",
		}, []string{"file", "result"}),
	}
}

var (
	descAuthFileRefused = prometheus.NewDesc("ossie_server_auth_file_refused",
		"1 while the newest content of a credentials file is refused and the last good one is in force.", []string{"file"}, nil)
	descAuthTokens = prometheus.NewDesc("ossie_server_auth_tokens",
		"Bearer token entries in force.", nil, nil)
)

// Describe implements prometheus.Collector.
func (a *Auth) Describe(ch chan<- *prometheus.Desc) {
	a.metrics.failures.Describe(ch)
	a.metrics.reloads.Describe(ch)
	ch <- descAuthFileRefused
	ch <- descAuthTokens
}

// Collect implements prometheus.Collector.
func (a *Auth) Collect(ch chan<- prometheus.Metric) {
	a.metrics.failures.Collect(ch)
	a.metrics.reloads.Collect(ch)
	if a.tokens != nil {
		ch <- prometheus.MustNewConstMetric(descAuthTokens, prometheus.GaugeValue, float64(len(a.tokens.get().ids)))
		ch <- prometheus.MustNewConstMetric(descAuthFileRefused, prometheus.GaugeValue, boolGauge(a.tokens.failed.Load()), a.tokens.kind)
	}
	if a.proxySecret != nil {
		ch <- prometheus.MustNewConstMetric(descAuthFileRefused, prometheus.GaugeValue, boolGauge(a.proxySecret.failed.Load()), a.proxySecret.kind)
	}
}

func boolGauge(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
