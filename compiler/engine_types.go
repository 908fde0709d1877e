package compiler

import "github.com/ossie-dev/ossie/api/ossie"

// FieldTypes are the datatypes an engine gives field expressions, found
// when a model is bound (engine/bindcheck): dataset name → field name →
// datatype.
type FieldTypes map[string]map[string]ossie.Datatype

// WithEngineTypes returns art with each field that declares no datatype
// typed as types says, and marked DatatypeResolved: "a field without
// datatype takes the type its expression has in the engine"
// (docs/query-semantics.md, Time zones), so a TIMESTAMP column is a naive
// DateTime (read in its stored zone) and a TIMESTAMPTZ one a DateTimeTz
// (converted into the query zone). Declared datatypes, Opaque and fields
// types does not name are left as they are. art is not modified; it is
// returned itself when nothing changes. The version does not change: it
// is the document's, and the engine's answer is checked again at every
// bind.
func WithEngineTypes(art *Artifact, types FieldTypes) *Artifact {
	var out *Artifact
	for i, ds := range art.Datasets {
		for j, f := range ds.Fields {
			t, ok := types[ds.Name][f.Name]
			if !ok || f.Datatype != "" || t == "" || t == ossie.TypeOpaque {
				continue
			}
			if out == nil {
				cp := *art
				cp.Datasets = append([]ArtifactDataset(nil), art.Datasets...)
				out = &cp
			}
			if &out.Datasets[i].Fields[0] == &art.Datasets[i].Fields[0] {
				out.Datasets[i].Fields = append([]ArtifactField(nil), ds.Fields...)
			}
			out.Datasets[i].Fields[j].Datatype = t
			out.Datasets[i].Fields[j].DatatypeResolved = true
		}
	}
	if out == nil {
		return art
	}
	return out
}
