package gen

import (
	"math/rand"
	"time"

	"github.com/ossie-dev/ossie/test/differential/dcase"
)

// Instants near which generated times cluster: the 2024 daylight-saving
// changes of Europe/Amsterdam and America/New_York, month, quarter and
// year ends, a leap day and the 53-week ISO year 2020.
var anchors = []time.Time{
	time.Date(2024, 3, 31, 1, 0, 0, 0, time.UTC),  // Amsterdam: 02:00 → 03:00
	time.Date(2024, 10, 27, 1, 0, 0, 0, time.UTC), // Amsterdam: 03:00 → 02:00
	time.Date(2024, 3, 10, 7, 0, 0, 0, time.UTC),  // New York: 02:00 → 03:00
	time.Date(2024, 11, 3, 6, 0, 0, 0, time.UTC),  // New York: 02:00 → 01:00
	time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC),   // year end
	time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC),   // after a leap day
	time.Date(2024, 7, 1, 0, 0, 0, 0, time.UTC),   // quarter end
	time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC),   // ISO 2020-W53
}

// timeSpan is how far from its anchor a case's times spread, chosen with
// the grain the case's windowed queries use, so that answers stay small.
type timeSpan struct {
	anchor time.Time
	spread time.Duration
}

func (s timeSpan) instant(r *rand.Rand) time.Time {
	d := time.Duration(r.Int63n(int64(2*s.spread))) - s.spread
	return s.anchor.Add(d).Truncate(time.Minute)
}

// timeValue is a canonical value of column type ct for instant t: a DATE
// is t's UTC date, a TIMESTAMP the wall time in zone stored (nil when
// that wall time is ambiguous or skipped there, so no engine has to pick
// one), a TIMESTAMPTZ the instant.
func timeValue(ct dcase.ColumnType, t time.Time, stored *time.Location) any {
	switch ct {
	case dcase.Date:
		y, m, d := t.UTC().Date()
		return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	case dcase.Timestamp:
		w := t.In(stored)
		wall := time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), 0, 0, time.UTC)
		// Unambiguous: the wall time maps back to t and an hour either
		// side does not show the same wall hour (the autumn overlap).
		back := time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), 0, 0, stored)
		if !back.Equal(t) || t.Add(time.Hour).In(stored).Hour() == w.Hour() || t.Add(-time.Hour).In(stored).Hour() == w.Hour() {
			return nil
		}
		return wall
	}
	return t.UTC()
}

// words are the text values: lower-case ASCII letters only, so that every
// engine's collation orders them by bytes.
var words = []string{"ab", "abc", "b", "bca", "cab", "d", "dd", "eab", "f", "gh"}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.Intn(len(xs))] }

func chance(r *rand.Rand, p float64) bool { return r.Float64() < p }

// numberValue is a value of a numeric column: integers, doubles that are
// multiples of 0.25 (exact in binary, so sums agree bit for bit), decimals
// with two places.
func numberValue(r *rand.Rand, ct dcase.ColumnType) any {
	switch ct {
	case dcase.Double:
		return float64(r.Intn(400)-100) / 4
	case dcase.Decimal:
		return float64(r.Intn(20000)-5000) / 100
	}
	return int64(r.Intn(60) - 10)
}
