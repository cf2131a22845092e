module wasp.dev/wasp

go 1.19
