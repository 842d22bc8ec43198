import LeakGraphCLI
import Testing
