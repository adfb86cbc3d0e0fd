/* Status strings, backend identity and the build record. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include <tessera/tessera.h>

Test(status, every_code_has_its_own_string) {
    for (int i = 0; i < TS_STATUS_COUNT_; ++i) {
        const char *s = ts_status_string((ts_status)i);
        cr_assert_not_null(s);
        cr_assert_neq(strcmp(s, "unknown status"), 0, "status %d has no string", i);
        for (int j = 0; j < i; ++j)
            cr_assert_neq(strcmp(s, ts_status_string((ts_status)j)), 0, "statuses %d and %d share a string", i, j);
    }
}

Test(status, unknown_values_are_named_unknown) {
    cr_assert_str_eq(ts_status_string(TS_STATUS_COUNT_), "unknown status");
    cr_assert_str_eq(ts_status_string((ts_status)-1), "unknown status");
    cr_assert_str_eq(ts_status_string((ts_status)12345), "unknown status");
}

Test(backend, reports_the_backend_it_was_built_for) {
    ts_backend b;
    cr_assert_eq(ts_get_backend(&b), TS_SUCCESS);
    const char *name = NULL;
    cr_assert_eq(ts_backend_name(b, &name), TS_SUCCESS);
#if defined(TESSERA_BACKEND_CUDA)
    cr_assert_eq(b, TS_BACKEND_CUDA);
    cr_assert_str_eq(name, "cuda");
#elif defined(TESSERA_BACKEND_HIP)
    cr_assert_eq(b, TS_BACKEND_HIP);
    cr_assert_str_eq(name, "hip");
#else
    cr_assert_eq(b, TS_BACKEND_HOST);
    cr_assert_str_eq(name, "host");
#endif
}

Test(backend, rejects_null_and_unknown_values) {
    const char *name = NULL;
    cr_assert_eq(ts_get_backend(NULL), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_backend_name(TS_BACKEND_HOST, NULL), TS_ERROR_NULL_POINTER);
    cr_assert_eq(ts_backend_name((ts_backend)7, &name), TS_ERROR_INVALID_ENUM);
}

Test(backend, build_info_names_a_commit_and_this_backend) {
    const char *commit = NULL, *options = NULL, *name = NULL;
    ts_backend b;
    cr_assert_eq(ts_build_info(&commit, &options), TS_SUCCESS);
    cr_assert_eq(ts_get_backend(&b), TS_SUCCESS);
    cr_assert_eq(ts_backend_name(b, &name), TS_SUCCESS);
    cr_assert(commit != NULL && commit[0] != '\0');
    cr_assert(options != NULL && options[0] == '{' && options[strlen(options) - 1] == '}', "options: %s", options);
    char key[64];
    snprintf(key, sizeof key, "\"backend\": \"%s\"", name);
    cr_assert_not_null(strstr(options, key), "options %s lack %s", options, key);
    const char *only = NULL;
    cr_assert_eq(ts_build_info(&only, NULL), TS_SUCCESS);
    cr_assert_eq(only, commit);
    cr_assert_eq(ts_build_info(NULL, &only), TS_SUCCESS);
    cr_assert_eq(only, options);
    cr_assert_eq(ts_build_info(NULL, NULL), TS_ERROR_NULL_POINTER);
}
