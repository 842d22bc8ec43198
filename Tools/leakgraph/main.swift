import LeakGraphCLI

await LeakGraphCommand.main()
