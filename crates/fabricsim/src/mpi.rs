//! MPI across processes (the `mpi` feature): `mpirun -n N fabricsim run SCENARIO` spreads a
//! partitioned run's blocks over N ranks ([`crate::parallel::run_ranks`]) with this
//! [`fabricsim_network::Transport`] over the system's MPI library (rsmpi): what crossed
//! between blocks of different ranks is exchanged with an all-to-all at each window end, and
//! the window end's sums with an all-gather. Started without `mpirun`, the world has one rank.

use crate::{Error, Plan, RunReport, Time};
use fabricsim_network::Transport;
use mpi::datatype::{Partition, PartitionMut};
use mpi::environment::Universe;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use mpi::Count;

/// The MPI library, started (finalised when dropped): hold it for the life of the program.
pub struct Mpi {
    universe: Universe,
}

impl Mpi {
    /// Start MPI (one rank when the program was not started by `mpirun`); `None` if it cannot
    /// start or was started already.
    pub fn start() -> Option<Mpi> {
        // Only the calling thread talks to MPI (the blocks' threads do not).
        let (universe, _) = mpi::initialize_with_threading(mpi::Threading::Funneled)?;
        Some(Mpi { universe })
    }

    /// This process's rank.
    pub fn rank(&self) -> usize {
        self.universe.world().rank() as usize
    }

    /// Ranks in the world.
    pub fn ranks(&self) -> usize {
        self.universe.world().size() as usize
    }

    /// Run `plan` over every rank (each rank calls this; each gets the whole run's report).
    pub fn run(&self, plan: &Plan, progress: impl FnMut(Time)) -> Result<RunReport, Error> {
        crate::parallel::run_ranks(plan, Box::new(Ranks(self.universe.world().duplicate())), progress)
    }
}

/// The world's ranks as a transport for a partitioned run.
struct Ranks(SimpleCommunicator);

// Every buffer handed to MPI has a byte more than it holds: an empty Rust slice's address is
// 1, which Open MPI takes for `MPI_IN_PLACE`.

/// Displacements of `counts` laid end to end.
fn displacements(counts: &[Count]) -> Vec<Count> {
    counts.iter().scan(0, |at, &c| Some(std::mem::replace(at, *at + c))).collect()
}

impl Transport for Ranks {
    fn rank(&self) -> usize {
        self.0.rank() as usize
    }

    fn ranks(&self) -> usize {
        self.0.size() as usize
    }

    fn all_to_all(&mut self, out: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
        let send_counts: Vec<Count> = out.iter().map(|b| b.len() as Count).collect();
        let mut recv_counts = vec![0 as Count; out.len()];
        self.0.all_to_all_into(&send_counts[..], &mut recv_counts[..]);
        let mut send: Vec<u8> = out.concat();
        send.push(0);
        let (send_at, recv_at) = (displacements(&send_counts), displacements(&recv_counts));
        let mut recv = vec![0u8; recv_counts.iter().sum::<Count>() as usize + 1];
        {
            let mut into = PartitionMut::new(&mut recv[..], &recv_counts[..], &recv_at[..]);
            self.0.all_to_all_varcount_into(&Partition::new(&send[..], &send_counts[..], &send_at[..]), &mut into);
        }
        split(&recv, &recv_counts, &recv_at)
    }

    fn all_gather(&mut self, mine: &[u8]) -> Vec<Vec<u8>> {
        let mut counts = vec![0 as Count; self.0.size() as usize];
        self.0.all_gather_into(&(mine.len() as Count), &mut counts[..]);
        let at = displacements(&counts);
        let mut recv = vec![0u8; counts.iter().sum::<Count>() as usize + 1];
        let mut send = mine.to_vec();
        send.push(0);
        {
            let mut into = PartitionMut::new(&mut recv[..], &counts[..], &at[..]);
            self.0.all_gather_varcount_into(&send[..mine.len()], &mut into);
        }
        split(&recv, &counts, &at)
    }
}

/// `buf` cut into the parts `counts` long at `at`.
fn split(buf: &[u8], counts: &[Count], at: &[Count]) -> Vec<Vec<u8>> {
    counts.iter().zip(at).map(|(&c, &a)| buf[a as usize..(a + c) as usize].to_vec()).collect()
}
