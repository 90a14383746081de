// Package trident is the Trident endpoint's contract folder (/mcp),
// embedded on its own: its tool manifest, schemas, samples, examples, error
// rows and the fare tariff. Read it through [Set].
package trident

import (
	"embed"

	"github.com/tridenttaxis/trident-mcp/contracts"
)

// FS holds the folder's files, with paths relative to it ("tools.json",
// "schemas/estimate_fare.input.json").
//
//go:embed tools.json errors.json schemas samples examples tariff
var FS embed.FS

// Set is the folder as a contract set.
var Set = contracts.NewSet("trident", FS)

// TariffFile is the path in [FS] of the fare tariff the server prices with.
const TariffFile = "tariff/argyll-2024-04.json"

// Tariff returns the default tariff file's bytes.
func Tariff() []byte {
	b, err := FS.ReadFile(TariffFile)
	if err != nil {
		panic("contracts/trident: " + err.Error()) // embedded at build time; absence is a build defect
	}
	return b
}
