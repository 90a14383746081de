package money_test

import (
	"errors"
	"fmt"

	"github.com/tridenttaxis/trident-mcp/server/relay/money"
)

func ExampleParseMajor() {
	fare, _ := money.ParseMajor("62.4", "GBP", money.Exact) // Trident's fareGBP
	low, _ := money.ParseMajor("21", "USD", money.Exact)    // Uber's low_estimate
	yen, _ := money.ParseMajor("1500", "JPY", money.Exact)
	dinar, _ := money.ParseMajor("1.5", "KWD", money.Exact)
	_, err := money.ParseMajor("0.125", "USD", money.Exact)
	rounded, _ := money.ParseMajor("0.125", "USD", money.HalfUp)
	fmt.Println(fare, low, yen, dinar, errors.Is(err, money.ErrTooPrecise), rounded)
	// Output: 6240 2100 1500 1500 true 13
}
