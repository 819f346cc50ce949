#include "CTerminal.h"

// The release script defines these (`-Xcc -DTRACKER_COMMIT=\"…\"`) so `tracker --version` names the commit it was built
// from without the tree holding a generated file; a build from a checkout has neither.
#ifndef TRACKER_COMMIT
#define TRACKER_COMMIT ""
#endif
#ifndef TRACKER_TREE_MODIFIED
#define TRACKER_TREE_MODIFIED 0
#endif

const char *tracker_build_commit(void) { return TRACKER_COMMIT; }

int tracker_build_tree_modified(void) { return TRACKER_TREE_MODIFIED; }
