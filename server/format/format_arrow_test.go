package format

import (
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

// TestParseDate32LikeTimeParse: the fast path reads every date as
// time.Parse does and refuses what it refuses.
func TestParseDate32LikeTimeParse(t *testing.T) {
	for _, s := range []string{"2024-02-29", "2023-02-29", "1999-12-31", "0001-01-01", "0000-01-01", "9999-12-31",
		"2024-00-10", "2024-13-01", "2024-04-31", "2024-04-00", "2024-4-01", "2024/04/01", "+024-04-01", "2024-04-0x", "", "20240401"} {
		want, werr := time.Parse(time.DateOnly, s)
		got, err := parseDate32(s)
		if (err != nil) != (werr != nil) || (err == nil && got != arrow.Date32FromTime(want)) {
			t.Errorf("%q: %v, %v; time.Parse %v, %v", s, got, err, want, werr)
		}
	}
	for d := time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC); d.Year() < 2100; d = d.AddDate(0, 0, 7) {
		if got, err := parseDate32(d.Format(time.DateOnly)); err != nil || got != arrow.Date32FromTime(d) {
			t.Fatalf("%s: %v, %v", d, got, err)
		}
	}
}
