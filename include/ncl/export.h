/*
 * ncl/export.h: symbol visibility, version numbers and the C/C++ linkage
 * guards shared by every public header. Nothing here allocates or links.
 */
#ifndef NCL_EXPORT_H
#define NCL_EXPORT_H

/* The version of these headers. Within one NCL_ABI_VERSION a minor version
   only adds (functions at the end of NclApi, ops and dtypes at the end of
   their enums, fields at the end of structs that carry their size); a
   program runs with a library of its headers' minor version or later
   (NclCheckVersion). */
#define NCL_VERSION_MAJOR 0
#define NCL_VERSION_MINOR 2
#define NCL_VERSION_PATCH 0
#define NCL_VERSION_STRING "0.2.0"
/* NCL_VERSION_MAJOR * 10000 + NCL_VERSION_MINOR * 100 + NCL_VERSION_PATCH */
#define NCL_VERSION_NUMBER 200
/* Bumped whenever a public struct or function signature changes
   incompatibly (the ABI baseline in abi/ says what changed). */
#define NCL_ABI_VERSION 1

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

#ifdef __cplusplus
#  define NCL_BEGIN_DECLS extern "C" {
#  define NCL_END_DECLS }
#else
#  define NCL_BEGIN_DECLS
#  define NCL_END_DECLS
#endif

#endif /* NCL_EXPORT_H */
