package pgwire

import "testing"

// Date and timestamp parameters sent as text with a zone offset, as
// pgjdbc's setDate and setTimestamp send them, read as PostgreSQL reads
// them: a date keeps its day, a timestamp its wall clock, a timestamptz
// its instant.
func TestDateTimeParamWithOffset(t *testing.T) {
	for _, tc := range []struct {
		oid     uint32
		in, out string
	}{
		{oidDate, "2024-01-01 +00", "2024-01-01"},
		{oidDate, "2024-01-31 -05:30", "2024-01-31"},
		{oidDate, "2024-01-01 23:30:00+02", "2024-01-01"},
		{oidDate, "2024-01-01", "2024-01-01"},
		{oidTimestamp, "2024-03-10 10:15:30.5+01", "2024-03-10T10:15:30.5"},
		{oidTimestampTz, "2024-03-10 10:15:30+01", "2024-03-10T10:15:30+01:00"},
		{oidTimestampTz, "2024-03-10 10:15:30 -07:00", "2024-03-10T10:15:30-07:00"},
		{oidDate, "tomorrowish", "tomorrowish"},
	} {
		if got := dateTimeParam(tc.oid, tc.in); got != tc.out {
			t.Errorf("%s as %s: %q, want %q", tc.in, typeName(tc.oid), got, tc.out)
		}
	}
}
