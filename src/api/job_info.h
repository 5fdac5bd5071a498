// Which rank of a job a traced process is, read from what launchers put in its environment, and
// the clock anchor that lets traces of one job be put on one time axis (`nodescope merge`).
//
// The rank comes from the first of these that holds a whole number, with the world size from
// the same launcher's variable:
//   RANK / WORLD_SIZE                          torchrun (torch.distributed.run), accelerate, ...
//   OMPI_COMM_WORLD_RANK / OMPI_COMM_WORLD_SIZE  Open MPI's mpirun
//   PMI_RANK / PMI_SIZE                        MPICH / Hydra, Intel MPI
//   SLURM_PROCID / SLURM_NTASKS                srun
//   LOCAL_RANK / LOCAL_WORLD_SIZE              a launcher that sets only the local rank
// RANK comes first: torchrun started by srun sets RANK per process while SLURM_PROCID counts
// srun's tasks. The local rank: LOCAL_RANK, OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID,
// SLURM_LOCALID.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "model/trace.h"

namespace nodescope {

// Looks a variable up: std::getenv in the process, a table in tests.
using EnvLookup = std::function<const char*(const char*)>;

// The rank, local rank and world size the environment names (-1 where it names none), the host
// name and the clocks read now.
JobInfo ReadJobInfo(const EnvLookup& env);

// Claims `path` (a trace path named by rank) for this process until it ends, so two processes of
// one host never write one file: a worker a rank started holds the rank's environment, and
// is named by pid when the rank's own process holds the claim. The claim is an abstract Unix
// socket named after the path made absolute (no file; the kernel drops it when the process
// ends). True when claimed, or when no socket can be made (then nothing is checked), or when the
// name is held by something that is not a claim of this user (a squatter: warned and ignored).
bool ClaimTracePath(const std::string& path);

}  // namespace nodescope
