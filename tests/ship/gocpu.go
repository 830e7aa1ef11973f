// A CPU profile from Go's own runtime/pprof, for the shipping and speedscope
// tests while prof-symbolize cannot write pprof: heavy spins four times as
// long as light, so main.spin is the heaviest frame by far.
// Usage: go run gocpu.go OUT.pb.gz
package main

import (
	"os"
	"runtime/pprof"
	"time"
)

var sink int

func spin(d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end); {
		for i := 0; i < 1000; i++ {
			sink += i
		}
	}
}

func heavy() { spin(400 * time.Millisecond) }
func light() { spin(100 * time.Millisecond) }

func main() {
	f, err := os.Create(os.Args[1])
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		panic(err)
	}
	heavy()
	light()
	pprof.StopCPUProfile()
	if err := f.Close(); err != nil {
		panic(err)
	}
}
