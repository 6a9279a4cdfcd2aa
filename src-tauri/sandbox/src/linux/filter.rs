//! The seccomp program: system calls a server never needs and that reach past the box (debugging
//! other processes, mounting, kernel keys and modules, BPF, io_uring, namespaces) fail with
//! EPERM, and so do sockets it may not open: Unix sockets always (a pathname socket such as the
//! session bus is reachable whatever Landlock grants), and Internet sockets by its network (off:
//! none; proxied: TCP only, to the proxy's port as Landlock says).

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

use crate::Network;

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
const REFUSED_IOCTLS: &[u64] = &[libc::TIOCSTI];

const SOCK_TYPE_MASK: u64 = 0xf;

/// The compiled program for a server with `network`.
pub fn program(network: Network) -> Result<BpfProgram, String> {
    let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(|e| e.to_string())?;
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> =
        REFUSED.iter().map(|s| (*s, Vec::new())).collect();
    rules.insert(libc::SYS_ioctl, ioctl_rules()?);
    rules.insert(libc::SYS_socket, socket_rules(network)?);
    SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )
    .and_then(BpfProgram::try_from)
    .map_err(|e| e.to_string())
}

fn arg(index: u8, op: SeccompCmpOp, value: u64) -> Result<SeccompCondition, String> {
    SeccompCondition::new(index, SeccompCmpArgLen::Dword, op, value).map_err(|e| e.to_string())
}

fn ioctl_rules() -> Result<Vec<SeccompRule>, String> {
    REFUSED_IOCTLS
        .iter()
        .map(|request| {
            SeccompRule::new(vec![arg(1, SeccompCmpOp::Eq, *request)?]).map_err(|e| e.to_string())
        })
        .collect()
}

/// Each rule refuses one kind of socket.
fn socket_rules(network: Network) -> Result<Vec<SeccompRule>, String> {
    let domain = |d: libc::c_int| arg(0, SeccompCmpOp::Eq, d as u64);
    let refuse =
        |conditions: Vec<SeccompCondition>| SeccompRule::new(conditions).map_err(|e| e.to_string());
    let mut rules = vec![
        refuse(vec![domain(libc::AF_UNIX)?])?,
        refuse(vec![domain(libc::AF_PACKET)?])?,
    ];
    for inet in [libc::AF_INET, libc::AF_INET6] {
        match network {
            Network::On => {}
            Network::Off => rules.push(refuse(vec![domain(inet)?])?),
            Network::Proxy { .. } => {
                for kind in [libc::SOCK_DGRAM, libc::SOCK_RAW, libc::SOCK_SEQPACKET] {
                    let masked = SeccompCmpOp::MaskedEq(SOCK_TYPE_MASK);
                    rules.push(refuse(vec![domain(inet)?, arg(1, masked, kind as u64)?])?);
                }
            }
        }
    }
    Ok(rules)
}
