import Foundation
import LeakGraphCLI

// The tool links LeakGraph, and LEAKGRAPH_DUMP_DIR makes every process that does write a dump at
// exit: exported in a shell, each `leakgraph report` would add its own dump next to the one it
// reads. `run` sets the variable for its child explicitly.
unsetenv("LEAKGRAPH_DUMP_DIR")
await LeakGraphCommand.runMain()
