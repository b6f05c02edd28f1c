package indexes_test

import (
	"fmt"

	"github.com/jobsync/jobsync/indexes"
)

// Reading status.completedIndexes of a Job with 10 completions, adding the
// indexes that succeeded since, and writing the list back.
func ExampleParse() {
	done, err := indexes.Parse("1,3-5,7", 10)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(done.Total(), "done; has 4:", done.Has(4), "has 6:", done.Has(6))

	done = done.WithIndexes([]int{2, 6, 8})
	fmt.Println(done.String())
	// Output:
	// 5 done; has 4: true has 6: false
	// 1-8
}

// Parse names the element that is wrong and where it starts.
func ExampleParse_error() {
	_, err := indexes.Parse("0-3,5,4", 10)
	fmt.Println(err)
	_, err = indexes.Parse("0-3,12", 10)
	fmt.Println(err)
	// Output:
	// index list "0-3,5,4": element "4" at offset 6: not in ascending order or overlapping the previous element
	// index list "0-3,12": element "12" at offset 4: index 12 is not below 10
}

// String writes ranges of three or more with a dash and pairs of
// neighbours as two indexes, as the Job controller does.
func ExampleSet_String() {
	s := indexes.Set{{First: 0, Last: 1}, {First: 3, Last: 3}, {First: 5, Last: 9}}
	fmt.Printf("%q\n", s.String())
	fmt.Printf("%q\n", indexes.Set(nil).String())
	// Output:
	// "0,1,3,5-9"
	// ""
}

// ParseLenient reads what the controller finds in a Job's status the way
// upstream does: unreadable elements are skipped and the list is cut at the
// number of completions.
func ExampleParseLenient() {
	fmt.Println(indexes.ParseLenient("0,1-foo,2,6-12", 8))
	// Output:
	// 0,2,6,7
}

// The first indexes of a 10-completion Job still to start, given those that
// succeeded and those with an active pod.
func ExampleFirstMissing() {
	succeeded, _ := indexes.Parse("0-2,5", 10)
	active := indexes.Set{}.WithIndexes([]int{3, 7})
	fmt.Println(indexes.FirstMissing(3, 10, succeeded, active))
	// Output:
	// [4 6 8]
}
