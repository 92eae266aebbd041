/**
 * @file
 * @brief Symbol visibility, version numbers and the C/C++ linkage guards
 * shared by every public header. Nothing here allocates or links.
 *
 * @defgroup ncl_version Version and linkage
 * @brief The version of the headers, the ABI version, and the macros that
 * give every public declaration its visibility and C linkage.
 *
 * A program compiled with these headers checks at start-up that the
 * library it runs with can serve it: NCL_CHECK_VERSION() (NclCheckVersion,
 * in ncl/api.h) compares NCL_VERSION_NUMBER and NCL_ABI_VERSION with the
 * library's own.
 * @{
 */
#ifndef NCL_EXPORT_H
#define NCL_EXPORT_H

/** Major version of these headers; a new major version may break the ABI. */
#define NCL_VERSION_MAJOR 0
/** Minor version of these headers. Within one NCL_ABI_VERSION a minor
    version only adds (functions at the end of NclApi, ops and dtypes at the
    end of their enums, fields at the end of structs that carry their size);
    a program runs with a library of its headers' minor version or later
    (NclCheckVersion). */
#define NCL_VERSION_MINOR 8
/** Patch version: fixes only, no change to the interface. */
#define NCL_VERSION_PATCH 0
/** The version of these headers as text, "major.minor.patch". */
#define NCL_VERSION_STRING "0.8.0"
/** NCL_VERSION_MAJOR * 10000 + NCL_VERSION_MINOR * 100 + NCL_VERSION_PATCH,
    the number NclVersionNumber and NclCheckVersion compare. */
#define NCL_VERSION_NUMBER 800
/** Bumped whenever a public struct or function signature changes
    incompatibly (the ABI baseline in abi/ says what changed); NclApi carries
    the library's value in NclApi::abi_version. */
#define NCL_ABI_VERSION 1

/** @def NCL_API
    Marks a public function: default visibility in the shared library (every
    other symbol is hidden), dllexport/dllimport on Windows, nothing when
    NCL_STATIC_DEFINE is defined (a program linking the static library
    defines it; the CMake package's NCL::ncl_static target does so). */
#if defined(NCL_STATIC_DEFINE)
#  define NCL_API
#elif defined(_WIN32)
#  if defined(NCL_BUILDING)
#    define NCL_API __declspec(dllexport)
#  else
#    define NCL_API __declspec(dllimport)
#  endif
#elif defined(__GNUC__) || defined(__clang__)
#  define NCL_API __attribute__((visibility("default")))
#else
#  define NCL_API
#endif

/** @def NCL_BEGIN_DECLS
    Opens the declarations of a public header: `extern "C" {` in C++, so that
    every header compiles as C11 and as C++ with C linkage; nothing in C. */
/** @def NCL_END_DECLS
    Closes what NCL_BEGIN_DECLS opened. */
#ifdef __cplusplus
#  define NCL_BEGIN_DECLS extern "C" {
#  define NCL_END_DECLS }
#else
#  define NCL_BEGIN_DECLS
#  define NCL_END_DECLS
#endif

/** @} */

#endif /* NCL_EXPORT_H */
