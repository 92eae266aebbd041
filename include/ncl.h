/**
 * @file
 * @brief The umbrella header of NCLib, NumPy's array loops as a standalone
 * C11 library. Include this one header; the headers under ncl/ hold the
 * areas (see the @ref index "overview" and the topics).
 */
#ifndef NCL_H
#define NCL_H

#include "ncl/export.h"
#include "ncl/status.h"
#include "ncl/dtype.h"
#include "ncl/array.h"
#include "ncl/params.h"
#include "ncl/list.h"
#include "ncl/fpe.h"
#include "ncl/threads.h"
#include "ncl/memory.h"
#include "ncl/create.h"
#include "ncl/convert.h"
#include "ncl/compare.h"
#include "ncl/isunary.h"
#include "ncl/unary.h"
#include "ncl/binary.h"
#include "ncl/ternary.h"
#include "ncl/reduce.h"
#include "ncl/sort.h"
#include "ncl/mask.h"
#include "ncl/rng.h"
#include "ncl/linalg.h"
#include "ncl/manip.h"
#include "ncl/hooks.h"
#include "ncl/dlpack.h"
#include "ncl/arrow.h"
#include "ncl/npy.h"
#include "ncl/api.h"

#endif /* NCL_H */
