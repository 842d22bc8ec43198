// Apple's Combine where it exists, OpenCombine elsewhere: the same API under two module names.
#if canImport(Combine)
    @_exported import Combine
#else
    @_exported import OpenCombine
#endif
