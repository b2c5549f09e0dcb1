//! `parlor-server`: host Parlor games over WebSocket.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser};
use parlor_server::options::{self, OptionsError, RunOptions};
use parlor_server::{run, Config, StoreConfig};
use tokio_util::sync::CancellationToken;

/// Parlor's game server: hosts rooms of Nimrod, Rummikub Lite, Cribbage
/// and more over WebSocket, validating every move and keeping every match
/// in a SQLite file (or, with --cluster, in PostgreSQL). Log level: set
/// RUST_LOG (e.g. RUST_LOG=debug).
#[derive(Debug, Parser)]
#[command(
    name = "parlor-server",
    version,
    args_conflicts_with_subcommands = true
)]
struct Args {
    /// Without one, the server runs.
    #[command(subcommand)]
    command: Option<Command>,
    /// Read settings from this TOML file: each key a flag's long name
    /// (`bind = "0.0.0.0:7878"`, `lease-ms = 3000`). A flag or its
    /// PARLOR_ environment variable wins over the file, the file over the
    /// default.
    #[arg(long, env = "PARLOR_CONFIG", value_name = "FILE")]
    config: Option<PathBuf>,
    /// Print the settings the server would run with, as a file --config
    /// reads (passwords hidden), and exit.
    #[arg(long)]
    print_config: bool,
    #[command(flatten)]
    run: RunOptions,
}

/// The server's tools, run instead of the server.
#[derive(Debug, clap::Subcommand)]
enum Command {
    /// Moving matches between stores.
    #[command(flatten)]
    Transfer(parlor_server::transfer::Command),
    /// Accounts on this server's database (roles), run on the server
    /// machine.
    #[command(subcommand)]
    Accounts(parlor_server::moderation::command::AccountsCommand),
    /// Copy a SQLite database while the server runs (SQLite's online
    /// backup, from one snapshot) to a new file readable by its owner
    /// alone, checked before it is said done. (A cluster's PostgreSQL is
    /// backed up with its own tools, e.g. `pg_dump`.)
    Backup {
        /// The database to copy, as given to the server's `--db`.
        #[arg(long, default_value = "parlor.db")]
        db: std::path::PathBuf,
        /// The new file (never overwritten).
        #[arg(long, value_name = "FILE")]
        to: std::path::PathBuf,
    },
}

/// The command line, and clap's matches: the layers need to know which
/// values clap defaulted (`value_source`), not only the values.
///
/// Parsed first without the run flags' environment variables: the
/// commands do not read them, so a bad `PARLOR_BIND` must not stop a
/// backup. Then, to run, with them; a bad value that the command line
/// alone did not have is said to come from its variable.
fn parse() -> (Args, clap::ArgMatches) {
    // Help, and any mistake, are left to the second parse: its help shows
    // the variables.
    let bare = Args::command()
        .mut_args(|a| a.env(None::<&str>))
        .try_get_matches()
        .ok();
    let matches = match bare {
        Some(bare) if bare.subcommand().is_some() => bare,
        _ => match Args::command().try_get_matches() {
            Ok(matches) => matches,
            Err(e) => {
                if let Some(key) = bare.as_ref().and_then(|bare| from_variable(&e, bare)) {
                    eprintln!("parlor-server: in the environment variable {}:", key.env);
                }
                e.exit()
            }
        },
    };
    match Args::from_arg_matches(&matches) {
        Ok(args) => (args, matches),
        Err(e) => e.exit(),
    }
}

/// The run flag whose environment variable made `error`, if the command
/// line alone (`bare`) did not give that flag.
fn from_variable(error: &clap::Error, bare: &clap::ArgMatches) -> Option<options::keys::Key> {
    let arg = error.get(clap::error::ContextKind::InvalidArg)?.to_string();
    options::keys::keys().into_iter().find(|k| {
        let flag = format!("--{}", k.name);
        (arg == flag || arg.starts_with(&format!("{flag} ")))
            && bare.value_source(&k.id) != Some(clap::parser::ValueSource::CommandLine)
    })
}

// The main thread accepts connections and runs the cluster's background
// work; rooms and connections run on the shards' threads.
#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    parlor_server::logs::init();
    let (args, matches) = parse();
    match args.command {
        Some(Command::Transfer(command)) => return command.run().await,
        Some(Command::Accounts(command)) => return command.run().await,
        Some(Command::Backup { db, to }) => {
            return match parlor_server::store::backup(&db, &to) {
                Ok(done) => {
                    println!(
                        "backed up {} to {}: {} bytes, layout {}",
                        db.display(),
                        done.to.display(),
                        done.bytes,
                        done.layout
                    );
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("parlor-server backup: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        None => {}
    }
    let effective = match options::load(args.run, &matches, args.config.as_deref()) {
        Ok(effective) => effective,
        Err(e) => {
            eprintln!("parlor-server: {e}");
            return ExitCode::from(OptionsError::EXIT_CODE);
        }
    };
    if args.print_config {
        print!("{}", options::render(&effective));
        return ExitCode::SUCCESS;
    }
    let args = effective.options;
    // Read before binding: a bad file stops the start with its name.
    let tls = match (&args.tls_cert, &args.tls_key) {
        (Some(cert), Some(key)) => match parlor_server::net::Tls::from_pem_files(cert, key) {
            Ok(tls) => Some(tls),
            Err(e) => {
                eprintln!("parlor-server: {e}");
                return ExitCode::FAILURE;
            }
        },
        _ => None,
    };
    let scheme = if tls.is_some() { "wss" } else { "ws" };
    let listener = match parlor_server::listener::bind(args.bind) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("parlor-server: cannot listen on {}: {e}", args.bind);
            return ExitCode::FAILURE;
        }
    };
    let bound = match listener.local_addr() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("parlor-server: cannot read the bound address: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Some(path) = &args.port_file {
        // Written to a temporary name and renamed, so that a reader never
        // sees a half-written address.
        let tmp = path.with_extension("tmp");
        if let Err(e) =
            std::fs::write(&tmp, bound.to_string()).and_then(|()| std::fs::rename(&tmp, path))
        {
            eprintln!("parlor-server: cannot write {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
    }
    println!("parlor-server listening on {scheme}://{bound}");
    let shutdown = CancellationToken::new();
    let trigger = shutdown.clone();
    tokio::spawn(async move {
        parlor_server::shutdown::signal().await;
        tracing::info!("shutting down");
        trigger.cancel();
    });
    let defaults = parlor_server::limits::Limits::default();
    let config = Config {
        store: match args.cluster {
            Some(url) => StoreConfig::Postgres {
                url,
                node: parlor_server::store::NodeSettings {
                    lease: std::time::Duration::from_millis(args.lease_ms),
                    advertise: args
                        .advertise
                        .unwrap_or_else(|| format!("{scheme}://{bound}")),
                },
            },
            None => StoreConfig::Sqlite {
                db: Some(args.db),
                sync: args.sync,
            },
        },
        limits: parlor_server::limits::Limits {
            max_connections: args.max_connections,
            max_rooms: args.max_rooms,
            rooms_per_address: args.rooms_per_address,
            analysis_positions: args.analysis_positions,
            accounts_per_address_hour: args.accounts_per_address_hour,
            rated_pair_cap: args.rated_pair_cap,
            upcoming_events_per_account: args.max_upcoming_events_per_account,
            events_per_address_day: args.max_events_per_address_per_day,
            ladder: parlor_server::limits::LadderSettings {
                enabled: !args.no_ladder,
                ..defaults.ladder
            },
            // The default policy, at the rate asked for (0: none).
            admission: defaults
                .admission
                .filter(|_| args.connects_per_address > 0.0)
                .map(|p| parlor_server::admission::AdmissionPolicy {
                    per_second: args.connects_per_address,
                    ..p
                }),
            ..defaults
        },
        bus: args.bus,
        metrics_bind: args.metrics_bind,
        shards: args
            .shards
            .map_or_else(parlor_server::shard::default_count, usize::from),
        tls,
        proxies: parlor_server::http::Proxies::new(args.behind_proxy),
        accounts: parlor_server::accounts::AccountSettings {
            insecure_passwords: args.insecure_passwords,
            allow_origins: args.allow_origin,
        },
    };
    match run(listener, config, shutdown).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("parlor-server: {e}");
            ExitCode::FAILURE
        }
    }
}
