package ossiectl

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ossie-dev/ossie/compiler"
)

func (e *env) compileCmd() *cobra.Command {
	var (
		versionOnly bool
		model       string
		opts        compiler.CompileOptions
		target      string
	)
	cmd := &cobra.Command{
		Use:   "compile FILE",
		Short: "Compile a document and print its artifacts (or only their versions)",
		Long: "compile prints one artifact JSON document per semantic model (a JSON stream), or with\n" +
			"--version-only one line per model: its version alone when the file has one model, else\n" +
			"`name version`. Problems go to standard error; exit status 1 on any error.",
		Example: "  ossiectl compile model.yaml > model.artifact.json\n" +
			"  ossiectl compile --version-only model.yaml          # sha256:... (what the operator publishes)\n" +
			"  ossiectl compile shop.sm.yaml --model orders --default-schema analytics",
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := setTargetDialect(target, &opts); err != nil {
				return err
			}
			arts, err := e.loadFile(args[0], opts)
			if err != nil {
				return err
			}
			if model != "" {
				a, err := pickModel(arts, model)
				if err != nil {
					return err
				}
				arts = []*compiler.Artifact{a}
			}
			if versionOnly {
				for _, a := range arts {
					if len(arts) == 1 {
						fmt.Fprintln(e.stdout, a.Version)
					} else {
						fmt.Fprintln(e.stdout, a.Name, a.Version)
					}
				}
				return nil
			}
			enc := json.NewEncoder(e.stdout)
			enc.SetIndent("", "  ")
			enc.SetEscapeHTML(false)
			for _, a := range arts {
				if err := enc.Encode(a); err != nil {
					return failf("encoding artifact %q: %v", a.Name, err)
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&versionOnly, "version-only", false, "print only the artifact version(s)")
	cmd.Flags().StringVar(&model, "model", "", "only this model of the file")
	compileFlags(cmd, &opts)
	targetEngineFlag(cmd, &target)
	e.gov.register(cmd, false)
	return cmd
}
