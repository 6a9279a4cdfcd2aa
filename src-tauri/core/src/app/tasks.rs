//! The app's requests about tasks: the ones kept (running and finished, per server) and
//! cancelling one from the Tasks panel.

use super::App;
use super::requests::{NoArgs, TaskRef};
use crate::error::Result;
use crate::tasks::TaskView;

impl App {
    /// Every task kept, running and finished, newest first (the window groups them by server).
    pub async fn list_tasks(&self, _: NoArgs) -> Result<Vec<TaskView>> {
        self.0.tasks.list().await
    }

    /// Asks the server to cancel one of its tasks (`tasks/cancel`); the call following it, if
    /// any, reports it cancelled.
    pub async fn cancel_task(&self, args: TaskRef) -> Result<()> {
        self.connection(&args.server)?
            .cancel_task(&args.task_id)
            .await
    }
}
