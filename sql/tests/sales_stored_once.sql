-- Every provider sale is stored once: the load's MERGE on transaction_id keeps it so (sales has no primary key,
-- whose index would grow with the history and could not spill). Grouped over all of sales: an integer key only.
select transaction_id, count(*) as rows_stored
from sales
group by transaction_id
having count(*) > 1
