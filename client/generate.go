package client

//go:generate go run ../tools/cmd/gen-client -out tools.gen.go
//go:generate go run ../tools/cmd/gen-client -contracts relay -types relay/mcptypes -alias relaytypes -out relay_tools.gen.go
