package ossiectl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	yaml3 "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	"github.com/ossie-dev/ossie/api/ossie"
	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/compiler"
)

func (e *env) manifestCmd() *cobra.Command {
	var name, namespace, governance, output string
	cmd := &cobra.Command{
		Use:   "manifest FILE --name NAME [--namespace NS] [--governance FILE] [-o OUT]",
		Short: "Wrap an Ossie document (plus governance and views) into a SemanticModel manifest for kubectl or ArgoCD",
		Long: "manifest validates the Ossie document FILE and writes an " + v1alpha1.GroupVersion.String() + " SemanticModel whose\n" +
			"spec is the document as written (comments and order kept), plus spec.views and spec.governance\n" +
			"from --governance FILE (a YAML/JSON file with top-level `views:` and the governance keys such as\n" +
			"`roles:`). `ossiectl validate` reads the manifest back and compiles the same artifact version as\n" +
			"the plain document. Output goes to stdout, or atomically to -o OUT.\n\n" +
			"Exit status: 0 written; 1 the document or governance file has problems; 2 usage.",
		Example: "  ossiectl manifest model.yaml --name shop --namespace analytics --governance governance.yaml -o shop.sm.yaml\n" +
			"  ossiectl validate shop.sm.yaml && kubectl apply --server-side -f shop.sm.yaml",
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
				return usagef("--name %q is not a Kubernetes object name: %s", name, strings.Join(errs, "; "))
			}
			if namespace != "" {
				if errs := validation.IsDNS1123Label(namespace); len(errs) > 0 {
					return usagef("--namespace %q is not a namespace name: %s", namespace, strings.Join(errs, "; "))
				}
			}
			data, err := e.readInput(args[0])
			if err != nil {
				return failf("cannot read the document %s: %v. Next: give the path of the plain Ossie document to wrap", displayName(args[0]), err)
			}
			if in, _ := readOssieInput(data); in == nil || in.manifest != nil {
				return failf("%s is already a SemanticModel manifest; give the plain Ossie document", displayName(args[0]))
			}
			var extra, govData []byte
			var viewsRaw []json.RawMessage
			if governance != "" {
				if extra, govData, viewsRaw, err = governanceSpec(governance); err != nil {
					return err
				}
			}
			// The document governed by the file, as the operator will
			// compile the manifest: governance problems (unknown roles'
			// members, bad row filters) surface here, in the governance file.
			arts, probs := compiler.LoadGoverned(data, govData, compiler.CompileOptions{})
			docProbs, govProbs := splitGovernanceProblems(probs)
			// Every view planned under its role, as the operator will;
			// without artifacts (problems above) at least the roles.
			if arts != nil {
				govProbs = append(govProbs, checkViews(viewsRaw, govData, arts)...)
			} else {
				govProbs = append(govProbs, viewRoleProblems(viewsRaw, govData)...)
			}
			printProblems(e.stderr, displayName(args[0]), docProbs)
			printProblems(e.stderr, governance, govProbs)
			if docProbs.HasErrors() || govProbs.HasErrors() {
				return failf("problems listed above; nothing was written. Next: fix them in the files named and run manifest again")
			}
			out, err := buildManifest(data, name, namespace, displayName(args[0]), extra)
			if err != nil {
				return failf("%v", err)
			}
			if err := checkManifest(out, arts); err != nil {
				return failf("internal: the manifest does not read back as the document: %v", err)
			}
			if output == "" {
				_, err = e.stdout.Write(out)
				return err
			}
			if err := writeAtomic(output, out); err != nil {
				return failf("%v", err)
			}
			fmt.Fprintf(e.stderr, "wrote %s (SemanticModel %s). Next: ossiectl validate %s && kubectl apply --server-side -f %s\n", output, name, output, output)
			return nil
		},
	}
	cmd.Flags().StringVar(&name, "name", "", "metadata.name of the SemanticModel (required)")
	cmd.Flags().StringVar(&namespace, "namespace", "", "metadata.namespace (omit to let kubectl -n decide)")
	cmd.Flags().StringVar(&governance, "governance", "", "YAML/JSON file with views: and governance (roles: ...) to carry into the spec")
	cmd.Flags().StringVarP(&output, "output", "o", "", "write the manifest to this file (atomically) instead of stdout")
	_ = cmd.MarkFlagRequired("name")
	return cmd
}

// buildManifest writes the SemanticModel text: a header, metadata, and
// spec = the document's own lines indented under `spec:` (so comments,
// order and block scalars survive), then the governance entries.
func buildManifest(doc []byte, name, namespace, source string, extra []byte) ([]byte, error) {
	if isJSON(doc) {
		n, err := readYAMLNode(doc)
		if err != nil {
			return nil, err
		}
		if doc, err = blockYAML(n); err != nil {
			return nil, err
		}
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Generated by `ossiectl manifest` from %s; edit that file and regenerate.\n", source)
	fmt.Fprintf(&b, "apiVersion: %s\nkind: SemanticModel\nmetadata:\n  name: %s\n", v1alpha1.GroupVersion.String(), name)
	if namespace != "" {
		fmt.Fprintf(&b, "  namespace: %s\n", namespace)
	}
	b.WriteString("spec:\n")
	for _, line := range strings.Split(strings.TrimRight(string(doc), "\n"), "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed == "---" || trimmed == "..." || strings.HasPrefix(line, "%") {
			continue // document markers and directives belong to the file, not the spec
		}
		if trimmed == "" {
			b.WriteString("\n")
			continue
		}
		b.WriteString("  " + line + "\n")
	}
	b.Write(indent(extra))
	return b.Bytes(), nil
}

func indent(text []byte) []byte {
	var b bytes.Buffer
	for _, line := range strings.SplitAfter(string(text), "\n") {
		if strings.TrimSpace(line) != "" {
			b.WriteString("  ")
		}
		b.WriteString(line)
	}
	return b.Bytes()
}

// governanceSpec reads the governance file (top-level `views` plus the
// keys of spec.governance) strictly into the API types, so a key the
// SemanticModel API does not have is refused here rather than by the API
// server. It returns the `views:` / `governance:` YAML for the spec, in
// the file's order, the file's bytes (compiler.ParseGovernance input) and
// the JSON of each view.
func governanceSpec(name string) (spec, data []byte, views []json.RawMessage, err error) {
	data, err = readNamedFile(name)
	if err != nil {
		return nil, nil, nil, failf("cannot read the governance file: %v. Next: check the --governance path (a YAML file with `roles:` and optional `views:`; docs/governance.md)", err)
	}
	bad := func(err error) ([]byte, []byte, []json.RawMessage, error) {
		return nil, nil, nil, failf("governance file %s: %v. Next: fix the file (top-level `views:` and governance keys such as `roles:`; see docs/governance.md)", name, err)
	}
	if p := compiler.CheckDocument(data); p != nil {
		return bad(fmt.Errorf("%d:%d: %s %s", p.Line, p.Column, p.Code, p.Message))
	}
	raw, err := yaml.YAMLToJSON(data)
	if err != nil {
		return bad(err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return bad(fmt.Errorf("want a mapping: %w", err))
	}
	var typed struct {
		Views      []v1alpha1.View
		Governance *ossie.Governance
	}
	if v, ok := top["views"]; ok {
		if err := strictJSON(v, &typed.Views); err != nil {
			return bad(fmt.Errorf("views: %w", err))
		}
		_ = json.Unmarshal(v, &views)
		delete(top, "views")
	}
	if len(top) > 0 {
		rest, _ := json.Marshal(top)
		typed.Governance = &ossie.Governance{}
		if err := strictJSON(rest, typed.Governance); err != nil {
			return bad(err)
		}
	}
	// Views are planned (roles, members, filters) by the caller once the
	// document is compiled, so every problem is listed at once.
	// Emit what the author wrote, in the author's order, now that it is
	// known to fit the API types.
	top2, err := readYAMLNode(data)
	if err != nil {
		return bad(err)
	}
	out := &yaml3.Node{Kind: yaml3.MappingNode}
	gov := &yaml3.Node{Kind: yaml3.MappingNode}
	for i := 0; i+1 < len(top2.Content); i += 2 {
		if top2.Content[i].Value == "views" {
			out.Content = append(out.Content, top2.Content[i], top2.Content[i+1])
		} else {
			gov.Content = append(gov.Content, top2.Content[i], top2.Content[i+1])
		}
	}
	if len(gov.Content) > 0 {
		out.Content = append(out.Content, &yaml3.Node{Kind: yaml3.ScalarNode, Value: "governance"}, gov)
	}
	if len(out.Content) == 0 {
		return nil, data, views, nil
	}
	spec, err = blockYAML(out)
	return spec, data, views, err
}

func strictJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// checkManifest proves the round trip: the manifest decodes strictly into
// the API type (what kubectl and the API server accept) and its document
// compiles to the same artifact versions as the plain file.
func checkManifest(manifest []byte, want []*compiler.Artifact) error {
	var sm v1alpha1.SemanticModel
	if err := yaml.UnmarshalStrict(manifest, &sm); err != nil {
		return err
	}
	in, probs := readOssieInput(manifest)
	if in == nil {
		return probs
	}
	got, probs := in.load(compiler.CompileOptions{})
	if probs.HasErrors() {
		return probs
	}
	if len(got) != len(want) {
		return fmt.Errorf("%d models, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i].Version != want[i].Version {
			return fmt.Errorf("model %s: version %s, want %s", got[i].Name, got[i].Version, want[i].Version)
		}
	}
	return nil
}
