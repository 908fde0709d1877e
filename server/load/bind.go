package load

import (
	"context"
	"fmt"
	"time"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/engine/bindcheck"
)

// DefaultBindTimeout bounds each look-up BindModels makes on the engine.
const DefaultBindTimeout = 30 * time.Second

// BindModels binds arts to eng as the operator does before it publishes
// (engine/bindcheck): each field that declares no datatype takes the type
// its expression has in the engine (the returned artifacts; arts are not
// modified), and a DateTime or DateTimeTz field whose expression the
// engine stores the other way (OSS5008) fails the load, since every
// answer would be shifted. Missing tables and columns do not fail it:
// queries that read them fail as drift, as before. An engine that does
// not answer within timeout (<= 0: DefaultBindTimeout) fails the load
// too, since the types could not be checked: that error wraps the
// engine's (errors.Is engine.ErrUnavailable and the like). Any other
// error is a *Error with the problems under the name file.
func BindModels(ctx context.Context, eng engine.Engine, arts []*compiler.Artifact, file string, timeout time.Duration) ([]*compiler.Artifact, error) {
	return bindModels(ctx, eng, arts, file, timeout, false)
}

// bindModels is BindModels; with refuseDrift, a missing table or column
// or a source the engine's user may not read (OSS5001, OSS5014) fails the
// load too (a reload of model files: the last good version keeps serving,
// reload.go).
func bindModels(ctx context.Context, eng engine.Engine, arts []*compiler.Artifact, file string, timeout time.Duration, refuseDrift bool) ([]*compiler.Artifact, error) {
	if timeout <= 0 {
		timeout = DefaultBindTimeout
	}
	res := bindcheck.Check(ctx, eng, arts, timeout)
	if res.Unavailable != nil {
		return nil, fmt.Errorf("%s: the engine did not answer, so the models' datatypes could not be checked: %w", file, res.Unavailable)
	}
	var probs compiler.Problems
	for _, p := range res.Problems {
		if p.Code == compiler.CodeBindingType || refuseDrift {
			probs = append(probs, p)
		}
	}
	if len(probs) > 0 {
		return nil, &Error{Files: []FileProblems{{File: file, Problems: probs}}}
	}
	return res.Resolve(arts), nil
}
