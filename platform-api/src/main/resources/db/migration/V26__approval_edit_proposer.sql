-- An approver's edit is a new action proposed by the editor: while it waits for another operator
-- the request stays pending with the edits and the editor's name here (separation of duties).
ALTER TABLE cadre_approval ADD COLUMN proposed_by VARCHAR(100);
