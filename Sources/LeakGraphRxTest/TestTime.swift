/// A virtual time of ``TestScheduler``, in ticks.
public typealias TestTime = Int
