// Build flags that fail closed: NODESCOPE_BUILDFLAG(HAS_CUPTI) is a compile error when misspelt.
#pragma once

#define NODESCOPE_BUILDFLAG_CAT_INDIRECT(a, b) a##b
#define NODESCOPE_BUILDFLAG_CAT(a, b) NODESCOPE_BUILDFLAG_CAT_INDIRECT(a, b)
// Each flag is a function-like macro returning 0 or 1; an unknown name does not expand.
#define NODESCOPE_BUILDFLAG(flag) (NODESCOPE_BUILDFLAG_CAT(NODESCOPE_BUILDFLAG_DEFINE_, flag)())

#if defined(NODESCOPE_CONFIG_HAS_CUPTI) && NODESCOPE_CONFIG_HAS_CUPTI
#define NODESCOPE_BUILDFLAG_DEFINE_HAS_CUPTI() 1
#else
#define NODESCOPE_BUILDFLAG_DEFINE_HAS_CUPTI() 0
#endif
