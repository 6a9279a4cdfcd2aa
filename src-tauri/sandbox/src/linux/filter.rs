//! The seccomp program: system calls a server never needs and that reach past the box (debugging
//! other processes, mounting, kernel keys and modules, BPF, io_uring, namespaces, `clone` with a
//! new namespace) fail with EPERM, and so do sockets it may not open: any family but the
//! Internet ones and routing netlink (Unix sockets included: a pathname socket such as the
//! session bus is reachable whatever Landlock grants), and Internet sockets by its network (off:
//! none; proxied: TCP streams only, to the proxy's port as Landlock says).
//!
//! Written as classic BPF here rather than through a filter compiler: the kernel decides once,
//! when the filter is installed, which system calls it always allows, by running the filter for
//! every system call number. A binary search over the numbers makes that a few steps each, not
//! a walk along every rule, which was most of what the box cost a native server's start. An
//! argument the kernel reads as an `int` (a socket's family and type, an ioctl's request) is
//! compared on its low 32 bits, as the kernel will read it.

use crate::Network;

/// One classic BPF instruction (`struct sock_filter`).
pub type Instruction = libc::sock_filter;

/// System calls refused outright.
const REFUSED: &[libc::c_long] = &[
    libc::SYS_ptrace,
    libc::SYS_process_vm_readv,
    libc::SYS_process_vm_writev,
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_pivot_root,
    libc::SYS_move_mount,
    libc::SYS_open_tree,
    libc::SYS_fsopen,
    libc::SYS_fsmount,
    libc::SYS_fsconfig,
    libc::SYS_fspick,
    libc::SYS_bpf,
    libc::SYS_keyctl,
    libc::SYS_add_key,
    libc::SYS_request_key,
    libc::SYS_kexec_load,
    libc::SYS_kexec_file_load,
    libc::SYS_init_module,
    libc::SYS_finit_module,
    libc::SYS_delete_module,
    libc::SYS_perf_event_open,
    libc::SYS_userfaultfd,
    libc::SYS_open_by_handle_at,
    libc::SYS_name_to_handle_at,
    libc::SYS_setns,
    libc::SYS_unshare,
    libc::SYS_io_uring_setup,
    libc::SYS_io_uring_enter,
    libc::SYS_io_uring_register,
    libc::SYS_swapon,
    libc::SYS_swapoff,
    libc::SYS_reboot,
    libc::SYS_acct,
    libc::SYS_quotactl,
];

/// `ioctl` requests refused: pushing input into the terminal.
const REFUSED_IOCTLS: &[u32] = &[libc::TIOCSTI as u32];

#[cfg(target_arch = "x86_64")]
const ARCH: u32 = 0xc000_003e; // AUDIT_ARCH_X86_64
#[cfg(target_arch = "aarch64")]
const ARCH: u32 = 0xc000_00b7; // AUDIT_ARCH_AARCH64
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
compile_error!("the sandbox's seccomp program knows x86_64 and aarch64");

/// x32 system calls carry this bit in their number on x86_64; they reach the same kernel code
/// under other numbers, so none is let through.
#[cfg(target_arch = "x86_64")]
const X32_BIT: u32 = 0x4000_0000;

const RET_ALLOW: u32 = 0x7fff_0000;
const RET_ERRNO: u32 = 0x0005_0000;
const RET_KILL_PROCESS: u32 = 0x8000_0000;

const LD_ABS: u16 = 0x20; // BPF_LD | BPF_W | BPF_ABS
const JEQ: u16 = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
const JGE: u16 = 0x35; // BPF_JMP | BPF_JGE | BPF_K
const AND: u16 = 0x54; // BPF_ALU | BPF_AND | BPF_K
const RET: u16 = 0x06; // BPF_RET | BPF_K

/// Offsets in `struct seccomp_data`.
const NR: u32 = 0;
const ARCH_AT: u32 = 4;
/// The low 32 bits of argument `i`: what the kernel reads when the argument is an `int`.
const fn low_word(i: u32) -> u32 {
    let at = 16 + 8 * i;
    if cfg!(target_endian = "little") {
        at
    } else {
        at + 4
    }
}

const SOCK_TYPE_MASK: u32 = 0xf;

/// `clone` flags that make new namespaces.
const NEW_NAMESPACES: u32 = (libc::CLONE_NEWNS
    | libc::CLONE_NEWCGROUP
    | libc::CLONE_NEWUTS
    | libc::CLONE_NEWIPC
    | libc::CLONE_NEWUSER
    | libc::CLONE_NEWPID
    | libc::CLONE_NEWNET) as u32;

/// Where a jump goes: the next instruction or a label placed later.
#[derive(Clone, Copy, PartialEq, Eq)]
enum To {
    Next,
    Label(usize),
}

/// The blocks every program ends with.
const ALLOW: To = To::Label(0);
const REFUSE: To = To::Label(1);
const IOCTL: To = To::Label(2);
const SOCKET: To = To::Label(3);
const INET: To = To::Label(4);
const SOCKETPAIR: To = To::Label(5);
const CLONE: To = To::Label(6);
const NO_CLONE3: To = To::Label(7);

/// A program under construction: instructions whose jumps name labels, resolved at the end.
struct Program {
    code: Vec<(u16, To, To, u32)>,
    labels: Vec<Option<usize>>,
}

impl Program {
    fn new() -> Self {
        // Room for the whole program at once: it is built on every boxed start.
        let mut labels = Vec::with_capacity(64);
        labels.resize(8, None);
        Self {
            code: Vec::with_capacity(128),
            labels,
        }
    }

    fn label(&mut self) -> To {
        self.labels.push(None);
        To::Label(self.labels.len() - 1)
    }

    fn place(&mut self, to: To) {
        if let To::Label(i) = to {
            self.labels[i] = Some(self.code.len());
        }
    }

    fn load(&mut self, at: u32) {
        self.code.push((LD_ABS, To::Next, To::Next, at));
    }

    fn jump(&mut self, op: u16, k: u32, yes: To, no: To) {
        self.code.push((op, yes, no, k));
    }

    fn ret(&mut self, k: u32) {
        self.code.push((RET, To::Next, To::Next, k));
    }

    fn and(&mut self, k: u32) {
        self.code.push((AND, To::Next, To::Next, k));
    }

    /// The instructions, every jump an offset forward; an error if one is out of reach.
    fn resolve(self) -> Result<Vec<Instruction>, String> {
        let offset = |from: usize, to: To| -> Result<u8, String> {
            let target = match to {
                To::Next => return Ok(0),
                To::Label(i) => self.labels[i].ok_or("a label was never placed")?,
            };
            target
                .checked_sub(from + 1)
                .and_then(|d| u8::try_from(d).ok())
                .ok_or_else(|| "a jump in the seccomp program is out of reach".to_owned())
        };
        self.code
            .iter()
            .enumerate()
            .map(|(at, &(code, yes, no, k))| {
                Ok(Instruction {
                    code,
                    jt: offset(at, yes)?,
                    jf: offset(at, no)?,
                    k,
                })
            })
            .collect()
    }
}

/// The program for a server with `network`.
pub fn program(network: Network) -> Result<Vec<Instruction>, String> {
    let mut p = Program::new();
    // Another architecture's numbers (a 32-bit call from a 64-bit process) mean other calls.
    p.load(ARCH_AT);
    let native = p.label();
    p.jump(JEQ, ARCH, native, To::Next);
    p.ret(RET_KILL_PROCESS);
    p.place(native);
    p.load(NR);
    #[cfg(target_arch = "x86_64")]
    p.jump(JGE, X32_BIT, REFUSE, To::Next);
    search(&mut p, &stretches(&ranges()));
    arguments(&mut p, network);
    p.resolve()
}

/// Sorted runs of consecutive system call numbers with the same block.
fn ranges() -> Vec<(u32, u32, To)> {
    let mut calls: Vec<(u32, To)> = REFUSED
        .iter()
        .map(|nr| (*nr as u32, REFUSE))
        .chain([
            (libc::SYS_ioctl as u32, IOCTL),
            (libc::SYS_socket as u32, SOCKET),
            (libc::SYS_socketpair as u32, SOCKETPAIR),
            (libc::SYS_clone as u32, CLONE),
            (libc::SYS_clone3 as u32, NO_CLONE3),
        ])
        .collect();
    calls.sort_by_key(|(nr, _)| *nr);
    let mut runs: Vec<(u32, u32, To)> = Vec::new();
    for (nr, to) in calls {
        match runs.last_mut() {
            Some((_, last, block)) if *last + 1 == nr && *block == to => *last = nr,
            _ => runs.push((nr, nr, to)),
        }
    }
    runs
}

/// Where each stretch of system call numbers goes, from its first number on: each run to its
/// block, and what lies between runs allowed.
fn stretches(runs: &[(u32, u32, To)]) -> Vec<(u32, To)> {
    let mut out = vec![(0, ALLOW)];
    for &(first, last, block) in runs {
        // An allowed stretch with nothing in it: before a run at 0, or between adjacent runs.
        if out.last().is_some_and(|&(start, _)| start == first) {
            out.pop();
        }
        out.push((first, block));
        out.push((last + 1, ALLOW));
    }
    out
}

/// A binary search over `stretches` on the number in the accumulator: one comparison for each
/// boundary between two stretches, whose sides jump straight to a stretch's block once one is
/// left. A search over the runs took half again as many (56 against 38), as each run's leaf
/// compared the number with both its ends: more program for the kernel to check and compile on
/// every boxed start (5–10 µs of its install here).
fn search(p: &mut Program, stretches: &[(u32, To)]) {
    if let [(_, block)] = stretches {
        p.jump(JEQ, 0, *block, *block);
        return;
    }
    let (low, high) = stretches.split_at(stretches.len() / 2);
    let upper = match high {
        [(_, block)] => *block,
        _ => p.label(),
    };
    let lower = match low {
        [(_, block)] => *block,
        _ => To::Next,
    };
    p.jump(JGE, high[0].0, upper, lower);
    if low.len() > 1 {
        search(p, low);
    }
    if high.len() > 1 {
        p.place(upper);
        search(p, high);
    }
}

/// The blocks: the calls decided by their arguments, then allow and refuse.
fn arguments(p: &mut Program, network: Network) {
    p.place(IOCTL);
    p.load(low_word(1));
    for request in REFUSED_IOCTLS {
        p.jump(JEQ, *request, REFUSE, To::Next);
    }
    p.jump(JEQ, 0, ALLOW, ALLOW);

    // New namespaces (a user namespace first): as `unshare` and `setns` are refused. A user
    // namespace opens kernel code a process without one cannot reach, where most of the
    // kernel's recent privilege escalations were. Legacy `clone` reads its flags' low 32 bits.
    p.place(CLONE);
    p.load(low_word(0));
    p.and(NEW_NAMESPACES);
    p.jump(JEQ, 0, ALLOW, REFUSE);

    // `socketpair` makes sockets of its family as `socket` does (loading the family's module).
    p.place(SOCKETPAIR);
    p.load(low_word(0));
    p.jump(JEQ, libc::AF_UNIX as u32, ALLOW, REFUSE);

    // Families by a list of those allowed: Internet ones by the network, and the routing
    // netlink that name lookups read the host's addresses through. No Unix socket: a pathname
    // one such as the session bus is reachable whatever Landlock grants.
    let inet = match network {
        Network::On => ALLOW,
        Network::Off => REFUSE,
        Network::Proxy { .. } => INET,
    };
    p.place(SOCKET);
    p.load(low_word(0));
    for family in [libc::AF_INET, libc::AF_INET6] {
        p.jump(JEQ, family as u32, inet, To::Next);
    }
    p.jump(JEQ, libc::AF_NETLINK as u32, To::Next, REFUSE);
    p.load(low_word(2));
    p.jump(JEQ, libc::NETLINK_ROUTE as u32, ALLOW, REFUSE);

    // Proxied: TCP to the proxy's port only (Landlock), so no datagrams (DNS included), and a
    // stream only of TCP itself: Landlock's TCP rules do not govern MPTCP or SCTP streams
    // (`IPPROTO_MPTCP`, `IPPROTO_SCTP`), which would reach any host past the proxy.
    if matches!(network, Network::Proxy { .. }) {
        p.place(INET);
        p.load(low_word(1));
        p.and(SOCK_TYPE_MASK);
        p.jump(JEQ, libc::SOCK_STREAM as u32, To::Next, REFUSE);
        p.load(low_word(2));
        p.jump(JEQ, 0, ALLOW, To::Next);
        p.jump(JEQ, libc::IPPROTO_TCP as u32, ALLOW, REFUSE);
    }

    // Last, as every jump goes forward.
    p.place(ALLOW);
    p.ret(RET_ALLOW);
    p.place(REFUSE);
    p.ret(RET_ERRNO | libc::EPERM as u32);
    // `clone3` passes its flags in memory, which the filter cannot read: it is "not there",
    // and the C library falls back to `clone`.
    p.place(NO_CLONE3);
    p.ret(RET_ERRNO | libc::ENOSYS as u32);
}

#[cfg(test)]
mod tests;
