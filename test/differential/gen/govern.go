package gen

import "github.com/ossie-dev/ossie/test/reference"

func (b *builder) governance() {}

func renderGovernance(g *reference.Governance) []byte { return nil }
