package plan

import "github.com/ossie-dev/ossie/api/ossie"

// storedZone implements stored time zones: "a naive DateTime value is an
// instant in its stored zone (the field's, dataset's or model's OSSIE
// extension `timezone`, else the install default compiled into the
// artifact, else UTC); it is
// converted into the query time zone before truncation and date-range
// filtering" (query-semantics.md, Time zones). It fires for every
// dimension and dimension filter reading a naive DateTime field, not
// masked, whose stored zone is not the query zone, and sets both zones;
// the renderer reads the value in the stored zone (dialect FromZone) and
// converts the instant to wall time in the query zone (AtTimeZone), so the
// engine's zone rules make it DST-correct. It makes no node.
func (bl *builder) storedZone() {
	q := bl.b.loc.String()
	for _, dm := range bl.b.dims {
		bl.setStored(dm, q)
	}
	for _, f := range bl.b.filters {
		bl.setStored(f.dm, q)
	}
}

func (bl *builder) setStored(dm *dim, query string) {
	// A masked field's f is a String copy, so it is never converted.
	if dm.f.Datatype != ossie.TypeDateTime || dm.masked != nil {
		return
	}
	st := dm.f.StoredTimezone // the install default is compiled in (CompileOptions.StoredTimezone)
	if st == "" {
		st = "UTC"
	}
	dm.storedZone = st
	if st != query {
		dm.zone = query
	}
}
