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

#include "model/trace.h"

namespace nodescope {

// Looks a variable up: std::getenv in the process, a table in tests.
using EnvLookup = std::function<const char*(const char*)>;

// The rank, local rank and world size the environment names (-1 where it names none), the host
// name and the clocks read now.
JobInfo ReadJobInfo(const EnvLookup& env);

// Set by a process session that named its trace by rank, inherited by the processes it starts:
// one that has the same rank (a worker a rank spawned, holding the rank's environment) is named
// by pid instead, so two processes never write one file.
inline constexpr char kRankTracedVariable[] = "NODESCOPE_RANK_TRACED";

}  // namespace nodescope
