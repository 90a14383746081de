package fare

import (
	"sync"

	tridentcontracts "github.com/tridenttaxis/trident-mcp/contracts/trident"
)

// Default returns the tariff embedded in contracts/trident/
// (tridentcontracts.TariffFile),
// parsed once. The file is part of the build, so a parse failure is a defect
// of the build itself and panics.
var Default = sync.OnceValue(func() *Tariff {
	t, err := Parse(tridentcontracts.Tariff())
	if err != nil {
		panic(err)
	}
	return t
})
