//! `mpirun -n N fabricsim run SCENARIO`: with the `mpi` feature, `run` starts MPI and, when
//! there are several ranks, spreads the run's blocks over them (`fabricsim::mpi`); rank 0
//! alone prints, the report and any error. Without the feature, or with one rank, a run is
//! the ordinary one.

use fabricsim::{Error, Plan, RunReport, Time};

/// The ranks this process runs among.
pub(crate) struct Ranks {
    #[cfg(feature = "mpi")]
    mpi: Option<fabricsim::mpi::Mpi>,
}

impl Ranks {
    /// Start MPI if this build has it (one rank when not started by `mpirun`).
    pub(crate) fn start() -> Ranks {
        Ranks {
            #[cfg(feature = "mpi")]
            mpi: fabricsim::mpi::Mpi::start(),
        }
    }

    /// No MPI: this process alone (commands other than `run`).
    pub(crate) fn alone() -> Ranks {
        Ranks {
            #[cfg(feature = "mpi")]
            mpi: None,
        }
    }

    /// Whether this process prints (rank 0, or the only process).
    pub(crate) fn prints(&self) -> bool {
        #[cfg(feature = "mpi")]
        if let Some(m) = &self.mpi {
            return m.rank() == 0;
        }
        true
    }

    /// Whether a run is spread over several ranks.
    pub(crate) fn spread(&self) -> bool {
        #[cfg(feature = "mpi")]
        if let Some(m) = &self.mpi {
            return m.ranks() > 1;
        }
        false
    }

    /// Run `plan` over the ranks ([`Ranks::spread`]); every rank gets the report, rank 0 alone
    /// sees `progress`.
    pub(crate) fn run(&self, plan: &Plan, mut progress: impl FnMut(Time)) -> Result<RunReport, Error> {
        #[cfg(feature = "mpi")]
        if let Some(m) = &self.mpi {
            let root = m.rank() == 0;
            return m.run(plan, |t| {
                if root {
                    progress(t)
                }
            });
        }
        let _ = (plan, &mut progress);
        Err(fabricsim::ConfigError::new("mpirun -n", "this build has no MPI (build it with --features mpi)").into())
    }
}
