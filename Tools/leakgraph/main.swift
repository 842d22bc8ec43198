import LeakGraphCLI

await LeakGraphCommand.runMain()
