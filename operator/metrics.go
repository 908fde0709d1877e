package operator

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/ossie-dev/ossie/api/v1alpha1"
)

// Metrics are the operator's Prometheus series, served on the manager's
// metrics endpoint next to controller-runtime's own:
//
//	ossie_operator_reconcile_total{result}             counter
//	ossie_operator_reconcile_duration_seconds{result}  histogram, seconds
//	ossie_operator_drift{namespace,name}               gauge: 1 drift, 0 none (absent: unknown)
//	ossie_operator_published_version_info{namespace,name,version}  gauge, always 1
//
// result is one of ready, invalid, drift, engine_unavailable, not_ready,
// error. A nil *Metrics records nothing.
type Metrics struct {
	reconciles *prometheus.CounterVec
	duration   *prometheus.HistogramVec
	drift      *prometheus.GaugeVec
	published  *prometheus.GaugeVec
}

// NewMetrics creates the series and registers them with reg.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		reconciles: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "ossie_operator_reconcile_total",
			Help: "SemanticModel reconcile passes by result.",
		}, []string{"result"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "ossie_operator_reconcile_duration_seconds",
			Help:    "Duration of SemanticModel reconcile passes by result, in seconds.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 16),
		}, []string{"result"}),
		drift: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "ossie_operator_drift",
			Help: "1 when the engine lacks a table or column a SemanticModel reads, 0 when bound; absent when unknown.",
		}, []string{"namespace", "name"}),
		published: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "ossie_operator_published_version_info",
			Help: "The bundle version published for each SemanticModel (value always 1).",
		}, []string{"namespace", "name", "version"}),
	}
	for _, c := range []prometheus.Collector{m.reconciles, m.duration, m.drift, m.published} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func ctrlMetricsRegistry() prometheus.Registerer { return ctrlmetrics.Registry }

func (m *Metrics) observe(result string, d time.Duration) {
	if m == nil {
		return
	}
	m.reconciles.WithLabelValues(result).Inc()
	m.duration.WithLabelValues(result).Observe(d.Seconds())
}

// record observes one pass and updates the per-model gauges.
func (m *Metrics) record(sm *v1alpha1.SemanticModel, p *pass, result string, d time.Duration) {
	if m == nil {
		return
	}
	m.observe(result, d)
	ns, name := sm.Namespace, sm.Name
	switch {
	case p.drift:
		m.drift.WithLabelValues(ns, name).Set(1)
	case p.bound:
		m.drift.WithLabelValues(ns, name).Set(0)
	default:
		m.drift.DeleteLabelValues(ns, name)
	}
	// One series per model: drop the previous version's before setting.
	m.published.DeletePartialMatch(prometheus.Labels{"namespace": ns, "name": name})
	if v := p.status.PublishedVersion; v != "" {
		m.published.WithLabelValues(ns, name, v).Set(1)
	}
}

// forget drops the series of a deleted SemanticModel.
func (m *Metrics) forget(ns, name string) {
	if m == nil {
		return
	}
	m.drift.DeleteLabelValues(ns, name)
	m.published.DeletePartialMatch(prometheus.Labels{"namespace": ns, "name": name})
}
