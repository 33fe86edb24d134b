-- Every provider sale of the period's scope is stored once: the load keeps it so, by transaction_id (sales
-- has no primary key, whose index would grow with the history and could not spill). Grouped over the scope, not
-- all of sales, so a reconcile's cost does not grow with the history; a sale of another month is checked when that
-- month is reconciled. int_provider__sales_classified holds one row per stored row of the scope.
select transaction_id, count(*) as rows_stored
from int_provider__sales_classified
group by transaction_id
having count(*) > 1
