package server

import (
	"errors"
	"net/http"
	"time"

	"github.com/ossie-dev/ossie/server/problem"
	"github.com/prometheus/client_golang/prometheus"
)

// Prometheus metrics of the query core, served on /metrics with the
// HTTP API's request counter (server/httpapi):
//
//	ossie_server_query_duration_seconds{model,outcome}    histogram (plan + engine, per Answer)
//	ossie_server_models_loaded                            gauge
//	ossie_server_model_info{model,version,source}         gauge, 1 per served model
//	ossie_server_model_load_error{model,source}           gauge, 1 while a newer version is refused
//	ossie_server_artifact_load_errors_total{reason}       counter (decode | planner)
//
// Label values are bounded: model is only a loaded model's name.

// Query outcomes of the duration histogram.
const (
	outcomeOK      = "ok"
	outcomeInvalid = "invalid" // 4xx: the query was refused by the planner
	outcomeTimeout = "timeout" // time limit or caller cancelled
	outcomeError   = "error"   // engine failure or internal error
)

// queryMetrics times the answers of every front end.
type queryMetrics struct {
	queryDuration *prometheus.HistogramVec
}

func newQueryMetrics() *queryMetrics {
	return &queryMetrics{
		queryDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "ossie_server_query_duration_seconds",
			Help: "Time to plan and run one metric query, by model and outcome.",
			// 5 ms .. ~82 s: embedded DuckDB answers in milliseconds, a
			// networked engine under load in tens of seconds.
			Buckets: prometheus.ExponentialBuckets(0.005, 2, 15),
		}, []string{"model", "outcome"}),
	}
}

func (m *queryMetrics) observeQuery(model string, d time.Duration, err error) {
	outcome := outcomeOK
	if err != nil {
		outcome = outcomeError
		var e *problem.Error
		if errors.As(err, &e) {
			switch {
			case e.Status == http.StatusGatewayTimeout || e.Status == 499:
				outcome = outcomeTimeout
			case e.Status < 500:
				outcome = outcomeInvalid
			}
		}
	}
	m.queryDuration.WithLabelValues(model, outcome).Observe(d.Seconds())
}

// registerMetrics registers the server's collectors and the store's. A
// store shared by several servers on one registry is registered once.
func registerMetrics(reg *prometheus.Registry, m *queryMetrics, store *Store) error {
	if err := reg.Register(m.queryDuration); err != nil {
		return err
	}
	if err := reg.Register(store); err != nil {
		var already prometheus.AlreadyRegisteredError
		if !errors.As(err, &already) {
			return err
		}
	}
	return nil
}

var (
	descModelsLoaded = prometheus.NewDesc("ossie_server_models_loaded",
		"Models currently served.", nil, nil)
	descModelInfo = prometheus.NewDesc("ossie_server_model_info",
		"The version and source of each served model (value 1).", []string{"model", "version", "source"}, nil)
	descModelLoadError = prometheus.NewDesc("ossie_server_model_load_error",
		"1 while the newest published version of a model is refused and the last good one (if any) serves.", []string{"model", "source"}, nil)
)

// Describe implements prometheus.Collector.
func (s *Store) Describe(ch chan<- *prometheus.Desc) {
	ch <- descModelsLoaded
	ch <- descModelInfo
	ch <- descModelLoadError
	s.loadErrors.Describe(ch)
}

// Collect implements prometheus.Collector from one catalog, so a scrape
// never mixes two generations.
func (s *Store) Collect(ch chan<- prometheus.Metric) {
	c := s.snapshot()
	ch <- prometheus.MustNewConstMetric(descModelsLoaded, prometheus.GaugeValue, float64(len(c.all)))
	for name, st := range c.status {
		if st.Version != "" {
			ch <- prometheus.MustNewConstMetric(descModelInfo, prometheus.GaugeValue, 1, name, st.Version, st.Source)
		}
		if st.Error != "" {
			ch <- prometheus.MustNewConstMetric(descModelLoadError, prometheus.GaugeValue, 1, name, st.Source)
		}
	}
	s.loadErrors.Collect(ch)
}
