package conformance

import (
	tridentcontracts "github.com/tridenttaxis/trident-mcp/contracts/trident"
)

// This file is the suite's only dependency on where the contracts keep the
// tariff and on how the contracts package hands it out: when either moves,
// this is the one line to change.

// TariffSource names the contract file the oracle reads, for messages.
const TariffSource = "contracts/trident/" + tridentcontracts.TariffFile

// tariffBytes returns the contract's tariff file as written.
func tariffBytes() []byte { return tridentcontracts.Tariff() }

// LoadTariff reads the contract's tariff file into the oracle's own model.
func LoadTariff() (*Tariff, error) { return ParseTariff(tariffBytes()) }
