package ossiectl

import (
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/plan"
)

// governanceFlags are --governance FILE (validate, compile, sql, query)
// and, where a query is planned (sql, query), --role and --attr to plan it
// as a caller of those roles (docs/governance.md). Without --role ossiectl
// plans ungoverned, as a trusted local tool: it reads every member and row.
type governanceFlags struct {
	file  string
	roles []string
	attrs []string
}

func (g *governanceFlags) register(cmd *cobra.Command, caller bool) {
	cmd.Flags().StringVar(&g.file, "governance", "", "governance file (attributes, roles, views; docs/governance.md) applied to the document")
	if caller {
		cmd.Flags().StringSliceVar(&g.roles, "role", nil, "plan as a caller holding these roles (comma-separated or repeated)")
		cmd.Flags().StringArrayVar(&g.attrs, "attr", nil, "caller attribute `NAME=VALUE` for row filters (repeatable; needs --role)")
	}
}

// attach reads the governance file into in, as spec.governance would be;
// a manifest that has its own spec.governance is refused (one source of
// truth per run).
func (g *governanceFlags) attach(e *env, in *ossieInput) error {
	if g.file == "" || in == nil {
		return nil
	}
	if in.governance != nil {
		return usagef("the SemanticModel already has spec.governance; drop --governance or that section")
	}
	data, err := e.readInput(g.file)
	if err != nil {
		return failf("%v", err)
	}
	in.governance = data
	return nil
}

// caller is the plan.Caller of --role/--attr, nil without --role.
func (g *governanceFlags) caller() (*plan.Caller, error) {
	if len(g.roles) == 0 {
		if len(g.attrs) > 0 {
			return nil, usagef("--attr needs --role")
		}
		return nil, nil
	}
	c := &plan.Caller{Roles: g.roles, Attributes: map[string]string{}}
	for _, a := range g.attrs {
		k, v, ok := strings.Cut(a, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, usagef("--attr %q: write NAME=VALUE", a)
		}
		c.Attributes[k] = v
	}
	return c, nil
}

// printProblems prints problems of the document named doc, those of the
// governance file (paths under "governance") under that file's name so
// that file:line:col points into the right file.
func (g *governanceFlags) printProblems(w io.Writer, doc string, probs compiler.Problems) {
	if g.file == "" {
		printProblems(w, doc, probs)
		return
	}
	own, gov := splitGovernanceProblems(probs)
	printProblems(w, doc, own)
	printProblems(w, displayName(g.file), gov)
}

// splitGovernanceProblems separates the problems of the governance section
// (path "governance" or under it) from those of the document, in order.
func splitGovernanceProblems(probs compiler.Problems) (doc, gov compiler.Problems) {
	for _, p := range probs {
		if p.Path == "governance" || strings.HasPrefix(p.Path, "governance.") {
			gov = append(gov, p)
		} else {
			doc = append(doc, p)
		}
	}
	return doc, gov
}
