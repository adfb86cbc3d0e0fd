/* ts_build_info: the commit and the options this library was built from, recorded by the build
 * (cmake/TesseraBuildInfo.cmake) so that a benchmark's results name the code they measured. */
#include <tessera/tessera.h>

#include "tessera_build_commit.h"
#include "tessera_build_options.h"

ts_status ts_build_info(const char **commit, const char **options) {
    if (!commit && !options) return TS_ERROR_NULL_POINTER;
    if (commit) *commit = TS_BUILD_COMMIT;
    if (options) *options = TS_BUILD_OPTIONS;
    return TS_SUCCESS;
}
