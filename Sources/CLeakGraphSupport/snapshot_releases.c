#include "CLeakGraphSupport.h"

#include <stdatomic.h>

// Sequentially consistent, as the snapshot's reasoning needs: a count read while no batch is
// between unlisting and release is exact (see `Snapshotter.withoutReleasesUnderway`).
static _Atomic long lg_releases_in_flight;
static _Atomic long lg_batches_unlisted;
static _Atomic long lg_batches_released;

long lg_snapshot_releases_in_flight(void) { return atomic_load(&lg_releases_in_flight); }
void lg_snapshot_release_began(void) { atomic_fetch_add(&lg_releases_in_flight, 1); }
void lg_snapshot_release_ended(void) { atomic_fetch_sub(&lg_releases_in_flight, 1); }

long lg_snapshot_batches_unlisted(void) { return atomic_load(&lg_batches_unlisted); }
long lg_snapshot_batches_released(void) { return atomic_load(&lg_batches_released); }
void lg_snapshot_batch_unlisted(void) { atomic_fetch_add(&lg_batches_unlisted, 1); }
void lg_snapshot_batch_released(void) { atomic_fetch_add(&lg_batches_released, 1); }

// A batch unlisted but not yet released at the fork stays retained in the child with nothing
// listed: its objects read one too high there (a safe "retained"), and nobody waits for it.
void lg_snapshot_releases_forget_other_threads(void) {
    atomic_store(&lg_releases_in_flight, 0);
    atomic_store(&lg_batches_released, atomic_load(&lg_batches_unlisted));
}
