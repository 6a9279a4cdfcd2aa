//! The program run on an interpreter of the instructions it uses, for every system call number
//! and the arguments that matter.

use super::*;

/// What the kernel's `struct seccomp_data` holds that the program reads.
struct Call {
    arch: u32,
    nr: u32,
    args: [u64; 6],
}

fn call(nr: libc::c_long, args: &[u64]) -> Call {
    let mut all = [0; 6];
    all[..args.len()].copy_from_slice(args);
    Call {
        arch: ARCH,
        nr: nr as u32,
        args: all,
    }
}

fn word(c: &Call, at: u32) -> u32 {
    match at {
        NR => c.nr,
        ARCH_AT => c.arch,
        _ => {
            let i = ((at - 16) / 8) as usize;
            let bytes = c.args[i].to_ne_bytes();
            let o = ((at - 16) % 8) as usize;
            u32::from_ne_bytes(bytes[o..o + 4].try_into().unwrap())
        }
    }
}

/// Runs the program the way the kernel does; every path must end in a return.
fn run(program: &[Instruction], c: &Call) -> u32 {
    let (mut pc, mut a) = (0usize, 0u32);
    loop {
        let i = program[pc];
        pc += 1;
        match i.code {
            LD_ABS => a = word(c, i.k),
            AND => a &= i.k,
            RET => return i.k,
            JEQ | JGE => {
                let yes = if i.code == JEQ { a == i.k } else { a >= i.k };
                pc += usize::from(if yes { i.jt } else { i.jf });
            }
            other => panic!("unexpected instruction {other:#x}"),
        }
    }
}

const EPERM: u32 = RET_ERRNO | libc::EPERM as u32;

const ENOSYS: u32 = RET_ERRNO | libc::ENOSYS as u32;

#[test]
fn every_listed_call_is_refused_and_every_other_allowed() {
    let p = program(Network::On).unwrap();
    // Arguments the blocks decided by them refuse: a number sent to one of them by mistake
    // shows as refused.
    let hostile = [
        (libc::AF_UNIX | libc::CLONE_NEWUSER) as u64,
        u64::from(REFUSED_IOCTLS[0]),
    ];
    let by_arguments = [
        libc::SYS_ioctl,
        libc::SYS_socket,
        libc::SYS_socketpair,
        libc::SYS_clone,
    ];
    for nr in 0..1024 {
        let expected = if nr == libc::SYS_clone3 {
            ENOSYS
        } else if REFUSED.contains(&nr) || by_arguments.contains(&nr) {
            EPERM
        } else {
            RET_ALLOW
        };
        assert_eq!(run(&p, &call(nr, &hostile)), expected, "call {nr}");
    }
}

/// A thread or a child, but no new namespace: a user namespace opens kernel code a process
/// cannot reach without one. `clone3`, whose flags the filter cannot read, is "not there", so
/// the C library falls back to `clone`.
#[test]
fn clone_makes_threads_and_children_but_no_namespace() {
    let p = program(Network::On).unwrap();
    let thread = (libc::CLONE_VM
        | libc::CLONE_FS
        | libc::CLONE_FILES
        | libc::CLONE_SIGHAND
        | libc::CLONE_THREAD
        | libc::CLONE_SYSVSEM
        | libc::CLONE_SETTLS
        | libc::CLONE_PARENT_SETTID
        | libc::CLONE_CHILD_CLEARTID) as u64;
    let fork = (libc::CLONE_CHILD_SETTID | libc::CLONE_CHILD_CLEARTID | libc::SIGCHLD) as u64;
    let vfork = (libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD) as u64;
    for flags in [thread, fork, vfork] {
        assert_eq!(run(&p, &call(libc::SYS_clone, &[flags])), RET_ALLOW);
    }
    for namespace in [
        libc::CLONE_NEWUSER,
        libc::CLONE_NEWNS,
        libc::CLONE_NEWPID,
        libc::CLONE_NEWNET,
        libc::CLONE_NEWUTS,
        libc::CLONE_NEWIPC,
        libc::CLONE_NEWCGROUP,
    ] {
        let flags = fork | namespace as u64;
        assert_eq!(run(&p, &call(libc::SYS_clone, &[flags])), EPERM);
    }
    assert_eq!(run(&p, &call(libc::SYS_clone3, &[0, 88])), ENOSYS);
}

/// Families by a list of those allowed: a rare family's module (VSOCK, TIPC, RDS, ALG …) is
/// kernel code a server has no use for, whether it asks `socket` or `socketpair`.
#[test]
fn only_listed_socket_families_are_made() {
    let p = program(Network::On).unwrap();
    for family in [
        libc::AF_VSOCK,
        libc::AF_TIPC,
        libc::AF_RDS,
        libc::AF_ALG,
        libc::AF_BLUETOOTH,
        libc::AF_CAN,
        libc::AF_XDP,
        libc::AF_KEY,
        libc::AF_PACKET,
    ] {
        for nr in [libc::SYS_socket, libc::SYS_socketpair] {
            assert_eq!(run(&p, &call(nr, &[family as u64, 1])), EPERM, "{family}");
        }
    }
    let pair = call(libc::SYS_socketpair, &[libc::AF_UNIX as u64, 1]);
    assert_eq!(run(&p, &pair), RET_ALLOW);
    let audit = call(libc::SYS_socket, &[libc::AF_NETLINK as u64, 3, 9]);
    assert_eq!(run(&p, &audit), EPERM, "netlink other than routing");
}

#[test]
fn sockets_by_network() {
    let unix = call(libc::SYS_socket, &[libc::AF_UNIX as u64, 1]);
    let tcp = call(libc::SYS_socket, &[libc::AF_INET6 as u64, 1]);
    let udp = call(libc::SYS_socket, &[libc::AF_INET as u64, 2 | 0o4000]);
    let netlink = call(libc::SYS_socket, &[libc::AF_NETLINK as u64, 3, 0]);
    let proxy = Network::Proxy { port: 1 };
    for (network, tcp_ok, udp_ok) in [
        (Network::On, true, true),
        (Network::Off, false, false),
        (proxy, true, false),
    ] {
        let p = program(network).unwrap();
        let verdict = |ok: bool| if ok { RET_ALLOW } else { EPERM };
        assert_eq!(run(&p, &unix), EPERM);
        assert_eq!(run(&p, &netlink), RET_ALLOW);
        assert_eq!(run(&p, &tcp), verdict(tcp_ok), "{network:?}");
        assert_eq!(run(&p, &udp), verdict(udp_ok), "{network:?}");
    }
}

/// Proxied, a stream socket must be TCP itself: Landlock's TCP rules do not govern MPTCP or
/// SCTP, which would connect past the proxy.
#[test]
fn a_proxied_box_opens_no_stream_but_tcp() {
    let p = program(Network::Proxy { port: 1 }).unwrap();
    let stream = |family: i32, protocol: i32| {
        call(
            libc::SYS_socket,
            &[family as u64, libc::SOCK_STREAM as u64, protocol as u64],
        )
    };
    for family in [libc::AF_INET, libc::AF_INET6] {
        assert_eq!(run(&p, &stream(family, 0)), RET_ALLOW);
        assert_eq!(run(&p, &stream(family, libc::IPPROTO_TCP)), RET_ALLOW);
        assert_eq!(run(&p, &stream(family, libc::IPPROTO_MPTCP)), EPERM);
        assert_eq!(run(&p, &stream(family, libc::IPPROTO_SCTP)), EPERM);
    }
    let on = program(Network::On).unwrap();
    assert_eq!(
        run(&on, &stream(libc::AF_INET, libc::IPPROTO_MPTCP)),
        RET_ALLOW
    );
}

#[test]
fn high_bits_do_not_hide_an_int_argument() {
    let p = program(Network::Off).unwrap();
    let high = 1u64 << 32;
    let unix = call(libc::SYS_socket, &[high | libc::AF_UNIX as u64, 1]);
    assert_eq!(run(&p, &unix), EPERM);
    let tiocsti = call(libc::SYS_ioctl, &[0, high | u64::from(REFUSED_IOCTLS[0])]);
    assert_eq!(run(&p, &tiocsti), EPERM);
    let other = call(libc::SYS_ioctl, &[0, 0x541b]); // FIONREAD
    assert_eq!(run(&p, &other), RET_ALLOW);
}

#[test]
fn another_architecture_is_killed_and_x32_refused() {
    let p = program(Network::On).unwrap();
    let mut foreign = call(libc::SYS_getpid, &[]);
    foreign.arch = 0x4000_0003; // AUDIT_ARCH_I386
    assert_eq!(run(&p, &foreign), RET_KILL_PROCESS);
    #[cfg(target_arch = "x86_64")]
    assert_eq!(run(&p, &call(libc::SYS_getpid | 0x4000_0000, &[])), EPERM);
}

#[test]
fn the_program_is_short() {
    // On every boxed start the kernel checks and compiles each instruction, and runs the
    // program once per system call number. A search over the runs rather than over their
    // boundaries took 75 instructions. A proxied box's socket block is the longest (the
    // protocol checked too): 72 on x86_64, 71 on aarch64, with `clone`'s namespaces and
    // `socketpair`'s family checked (60 and 61 before).
    for network in [Network::On, Network::Off, Network::Proxy { port: 1 }] {
        let p = program(network).unwrap();
        assert!(p.len() <= 72, "{} instructions", p.len());
    }
}
