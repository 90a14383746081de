package fare

import (
	"sync"

	"github.com/tridenttaxis/trident-mcp/contracts"
)

// Default returns the tariff embedded in contracts/ (contracts.TariffFile),
// parsed once. The file is part of the build, so a parse failure is a defect
// of the build itself and panics.
var Default = sync.OnceValue(func() *Tariff {
	t, err := Parse(contracts.Tariff())
	if err != nil {
		panic(err)
	}
	return t
})
