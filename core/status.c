/* Status strings and the backend this library was built for. */
#include <tessera/tessera.h>

#include "backends/runtime.h"

const char *ts_status_string(ts_status status) {
    switch (status) {
    case TS_SUCCESS: return "success";
    case TS_ERROR_NULL_POINTER: return "a required pointer argument is NULL";
    case TS_ERROR_INVALID_SIZE: return "a size, count or dimension is zero or negative";
    case TS_ERROR_SIZE_OVERFLOW: return "sizes overflow the supported index range";
    case TS_ERROR_INVALID_ENUM: return "an enum argument holds an unknown value";
    case TS_ERROR_INVALID_VALUE: return "an argument is out of its documented range";
    case TS_ERROR_MISALIGNED: return "a pointer or leading dimension is not aligned as required";
    case TS_ERROR_INVALID_DEVICE: return "no device with that ordinal";
    case TS_ERROR_NO_DEVICE: return "the backend found no device";
    case TS_ERROR_UNSUPPORTED: return "not supported by this backend or device";
    case TS_ERROR_OUT_OF_MEMORY: return "out of memory";
    case TS_ERROR_RESOURCES: return "the launch asks for more resources than a block may have";
    case TS_ERROR_LAUNCH_FAILED: return "the kernel launch failed";
    case TS_ERROR_DEADLOCK: return "the kernel deadlocked (host backend timeout)";
    case TS_ERROR_NOT_READY: return "the work has not completed yet";
    case TS_ERROR_RUNTIME: return "the backend runtime reported an error";
    case TS_ERROR_UNGUARDED_ATOMIC: return "an atomic outside a one-lane region (TS_ONE_LANE) in a kernel (host backend)";
    case TS_STATUS_COUNT_: break;
    }
    return "unknown status";
}

ts_status ts_get_backend(ts_backend *backend) {
    if (!backend) return TS_ERROR_NULL_POINTER;
    *backend = ts_backend_id();
    return TS_SUCCESS;
}

ts_status ts_backend_name(ts_backend backend, const char **name) {
    if (!name) return TS_ERROR_NULL_POINTER;
    switch (backend) {
    case TS_BACKEND_HOST: *name = "host"; return TS_SUCCESS;
    case TS_BACKEND_CUDA: *name = "cuda"; return TS_SUCCESS;
    case TS_BACKEND_HIP: *name = "hip"; return TS_SUCCESS;
    }
    return TS_ERROR_INVALID_ENUM;
}
