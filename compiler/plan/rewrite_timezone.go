package plan

import "github.com/ossie-dev/ossie/api/ossie"

// timezone implements the query time zone: "time zones apply to
// DateTimeTz fields: the value is converted to wall time in the query
// zone before truncation and date-range filtering. Date and naive
// DateTime values are wall time already and are not shifted"
// (query-semantics.md, Decisions). It fires for every dimension and
// dimension filter reading a DateTimeTz field (UTC when the query names no
// zone) that the caller does not read masked, and sets the zone its value
// is converted to; it makes no node.
func (bl *builder) timezone() {
	zone := bl.b.loc.String()
	for _, dm := range bl.b.dims {
		setZone(dm, zone)
	}
	for _, f := range bl.b.filters {
		setZone(f.dm, zone)
	}
}

func setZone(dm *dim, zone string) {
	// A masked field's f is a String copy, so it is never converted.
	if dm.f.Datatype == ossie.TypeDateTimeTz && dm.masked == nil {
		dm.zone = zone
	}
}
