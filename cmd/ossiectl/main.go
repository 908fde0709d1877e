// Command ossiectl is the Ossie authoring CLI; see package ossiectl.
package main

import (
	"os"

	"github.com/ossie-dev/ossie/ossiectl"
)

func main() {
	os.Exit(ossiectl.Do(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
